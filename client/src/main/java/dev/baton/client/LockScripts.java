package dev.baton.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The lock scripts, {@code /lua/lock-*.lua} in this jar: the single copy that applications and the
 * operator both run. Each opens with a comment naming its KEYS, ARGV and reply.
 */
public enum LockScripts {
  ACQUIRE("lock-acquire"),
  FENCE("lock-fence"),
  RENEW("lock-renew"),
  RELEASE("lock-release"),
  OBSERVE("lock-observe");

  private final String fileName;
  private final String source;

  LockScripts(String fileName) {
    this.fileName = fileName;
    this.source = read("/lua/" + fileName + ".lua");
  }

  public String fileName() {
    return fileName;
  }

  public String source() {
    return source;
  }

  private static String read(String path) {
    try (InputStream in = LockScripts.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing script " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
