package dev.baton.kubectl;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

/**
 * A gzip-compressed tar (ustar) written entry by entry, as {@code tar xzf} reads it: a 512-byte
 * header per file, its bytes padded to 512, two empty blocks at the end. Names up to 255 bytes
 * (prefix and name fields); the JDK has no tar writer, and this needs no more.
 */
final class TarBundle implements AutoCloseable {

  private static final int BLOCK = 512;

  private final GZIPOutputStream out;
  private final long mtime = System.currentTimeMillis() / 1000;

  TarBundle(OutputStream target) throws IOException {
    this.out = new GZIPOutputStream(target);
  }

  void add(String name, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    out.write(header(name, bytes.length));
    out.write(bytes);
    int pad = (BLOCK - bytes.length % BLOCK) % BLOCK;
    out.write(new byte[pad]);
  }

  private byte[] header(String path, long size) {
    byte[] h = new byte[BLOCK];
    byte[] full = path.getBytes(StandardCharsets.UTF_8);
    String name = path;
    String prefix = "";
    if (full.length > 100) {
      int slash = path.lastIndexOf('/', path.length() - 1);
      while (slash > 0 && path.substring(slash + 1).getBytes(StandardCharsets.UTF_8).length > 100) {
        slash = path.lastIndexOf('/', slash - 1);
      }
      if (slash <= 0 || slash > 155) {
        throw new IllegalArgumentException("name too long for a tar entry: " + path);
      }
      prefix = path.substring(0, slash);
      name = path.substring(slash + 1);
    }
    put(h, 0, 100, name);
    put(h, 100, 8, octal(0644, 7));
    put(h, 108, 8, octal(0, 7));
    put(h, 116, 8, octal(0, 7));
    put(h, 124, 12, octal(size, 11));
    put(h, 136, 12, octal(mtime, 11));
    for (int i = 148; i < 156; i++) {
      h[i] = ' ';
    }
    h[156] = '0';
    put(h, 257, 6, "ustar");
    put(h, 263, 2, "00");
    put(h, 345, 155, prefix);
    long sum = 0;
    for (byte b : h) {
      sum += b & 0xff;
    }
    put(h, 148, 8, octal(sum, 6) + "\0 ");
    return h;
  }

  private static String octal(long value, int digits) {
    String s = Long.toOctalString(value);
    return "0".repeat(Math.max(0, digits - s.length())) + s;
  }

  private static void put(byte[] h, int at, int length, String value) {
    byte[] b = value.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(b, 0, h, at, Math.min(length, b.length));
  }

  @Override
  public void close() throws IOException {
    out.write(new byte[BLOCK * 2]);
    out.finish();
    out.close();
  }
}
