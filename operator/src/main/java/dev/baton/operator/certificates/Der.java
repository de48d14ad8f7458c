package dev.baton.operator.certificates;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The few ASN.1 DER encodings an X.509 certificate needs (ITU-T X.690), so that the operator makes
 * its certificates with the JDK alone; the JDK's CertificateFactory reads each one back before it
 * is used, which checks the encoding.
 */
final class Der {

  private static final DateTimeFormatter UTC_TIME =
      DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter GENERALIZED_TIME =
      DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

  /** RFC 5280: UTCTime through 2049, GeneralizedTime from 2050. */
  private static final Instant YEAR_2050 = Instant.parse("2050-01-01T00:00:00Z");

  private Der() {}

  static byte[] tlv(int tag, byte[]... contents) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (byte[] c : contents) {
      body.writeBytes(c);
    }
    byte[] value = body.toByteArray();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int n = value.length;
    if (n < 0x80) {
      out.write(n);
    } else {
      byte[] len = BigInteger.valueOf(n).toByteArray();
      int skip = len[0] == 0 ? 1 : 0;
      out.write(0x80 | (len.length - skip));
      out.write(len, skip, len.length - skip);
    }
    out.writeBytes(value);
    return out.toByteArray();
  }

  static byte[] sequence(byte[]... contents) {
    return tlv(0x30, contents);
  }

  static byte[] set(byte[]... contents) {
    return tlv(0x31, contents);
  }

  static byte[] integer(BigInteger value) {
    return tlv(0x02, value.toByteArray());
  }

  static byte[] bool(boolean value) {
    return tlv(0x01, new byte[] {(byte) (value ? 0xff : 0)});
  }

  static byte[] octets(byte[] value) {
    return tlv(0x04, value);
  }

  static byte[] utf8(String value) {
    return tlv(0x0c, value.getBytes(StandardCharsets.UTF_8));
  }

  /** A BIT STRING of whole bytes. */
  static byte[] bits(byte[] value) {
    byte[] body = new byte[value.length + 1];
    System.arraycopy(value, 0, body, 1, value.length);
    return tlv(0x03, body);
  }

  /**
   * A named-bit BIT STRING (KeyUsage) of one byte: DER drops the trailing zero bits and counts them
   * as unused.
   */
  static byte[] namedBits(int firstByte) {
    int unused = Integer.numberOfTrailingZeros(firstByte);
    return tlv(0x03, new byte[] {(byte) unused, (byte) firstByte});
  }

  static byte[] time(Instant at) {
    return at.isBefore(YEAR_2050)
        ? tlv(0x17, UTC_TIME.format(at).getBytes(StandardCharsets.US_ASCII))
        : tlv(0x18, GENERALIZED_TIME.format(at).getBytes(StandardCharsets.US_ASCII));
  }

  /** An OBJECT IDENTIFIER from its dotted form. */
  static byte[] oid(String dotted) {
    String[] arcs = dotted.split("\\.");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(Integer.parseInt(arcs[0]) * 40 + Integer.parseInt(arcs[1]));
    for (int i = 2; i < arcs.length; i++) {
      long arc = Long.parseLong(arcs[i]);
      byte[] groups = new byte[10];
      int n = 0;
      do {
        groups[n++] = (byte) (arc & 0x7f);
        arc >>>= 7;
      } while (arc != 0);
      for (int j = n - 1; j >= 0; j--) {
        out.write(groups[j] | (j > 0 ? 0x80 : 0));
      }
    }
    return tlv(0x06, out.toByteArray());
  }

  /** A context-specific tag: constructed (explicit) or primitive (implicit). */
  static byte[] context(int number, boolean constructed, byte[]... contents) {
    return tlv((constructed ? 0xa0 : 0x80) | number, contents);
  }
}
