package dev.baton.operator.lease;

import java.nio.charset.StandardCharsets;

/**
 * The Redis Cluster hash slot of a key: CRC16 (XMODEM) of the key, or of its hash tag (the part
 * between the first '{' and the next '}', when not empty), modulo 16384. Every key of one election
 * or lock shares a tag, so they share a slot; batched renewals are grouped by it.
 */
final class HashSlot {

  static final int SLOTS = 16384;

  private HashSlot() {}

  static int of(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    int start = 0;
    int end = bytes.length;
    int open = indexOf(bytes, (byte) '{', 0);
    if (open >= 0) {
      int close = indexOf(bytes, (byte) '}', open + 1);
      if (close > open + 1) {
        start = open + 1;
        end = close;
      }
    }
    return crc16(bytes, start, end) & (SLOTS - 1);
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  /** CRC16-CCITT as Redis uses it: polynomial 0x1021, initial value 0, no reflection. */
  static int crc16(byte[] bytes, int start, int end) {
    int crc = 0;
    for (int i = start; i < end; i++) {
      crc ^= (bytes[i] & 0xff) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      crc &= 0xffff;
    }
    return crc;
  }
}
