package dev.baton.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Lua script from {@code /lua/<name>.lua} on the classpath, loaded once. A line {@code --#include
 * <fragment>} is replaced by {@code /lua/<fragment>.lua}, so a rule that several scripts must apply
 * identically (the fencing reservation) is written once. The operator loads its lease scripts
 * through this class too: one loader for every script Baton runs.
 */
public record LuaScript(String name, String source) {

  private static final Pattern INCLUDE =
      Pattern.compile("^--#include ([a-z-]+)$", Pattern.MULTILINE);

  public static LuaScript load(String name) {
    String text = read(name);
    Matcher m = INCLUDE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(read(m.group(1)).strip()));
    }
    m.appendTail(out);
    return new LuaScript(name, out.toString());
  }

  private static String read(String name) {
    String path = "/lua/" + name + ".lua";
    try (InputStream in = LuaScript.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing script " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
