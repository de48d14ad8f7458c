package dev.baton.operator.lease;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** A Lua script from {@code src/main/resources/lua}, loaded once. */
public record LuaScript(String name, String source) {

  public static LuaScript load(String name) {
    String path = "/lua/" + name + ".lua";
    try (InputStream in = LuaScript.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing script " + path);
      }
      return new LuaScript(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
