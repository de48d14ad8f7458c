package dev.baton.agent.kube;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM certificates and private keys as kubeconfigs carry them: PKCS#8, and the PKCS#1 (RSA) and
 * SEC1 (EC) forms that kubeadm, kind and k3s write, which the JDK reads only once wrapped in
 * PKCS#8.
 */
final class Pem {

  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z ]+)-----([^-]+)-----END \\1-----");
  private static final byte[] RSA_OID = {
    0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01
  };
  private static final byte[] EC_OID = {
    0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01
  };

  private Pem() {}

  static List<Certificate> certificates(byte[] pem) throws Exception {
    return new ArrayList<>(
        CertificateFactory.getInstance("X.509")
            .generateCertificates(new ByteArrayInputStream(pem)));
  }

  static PrivateKey privateKey(byte[] pem) throws Exception {
    Matcher m = BLOCK.matcher(new String(pem, StandardCharsets.US_ASCII));
    while (m.find()) {
      byte[] der = Base64.getMimeDecoder().decode(m.group(2));
      switch (m.group(1)) {
        case "PRIVATE KEY" -> {
          return pkcs8(der);
        }
        case "RSA PRIVATE KEY" -> {
          return KeyFactory.getInstance("RSA")
              .generatePrivate(
                  new PKCS8EncodedKeySpec(wrap(sequence(RSA_OID, new byte[] {5, 0}), der)));
        }
        case "EC PRIVATE KEY" -> {
          return KeyFactory.getInstance("EC")
              .generatePrivate(new PKCS8EncodedKeySpec(wrap(sequence(EC_OID, curveOf(der)), der)));
        }
        default -> {
          // EC PARAMETERS and the like precede the key in some files
        }
      }
    }
    throw new IllegalArgumentException("no private key (PKCS#8, RSA or EC) in the PEM text");
  }

  private static PrivateKey pkcs8(byte[] der) throws Exception {
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (Exception e) {
        // try the next algorithm
      }
    }
    throw new IllegalArgumentException("an unsupported PKCS#8 private key");
  }

  /** PrivateKeyInfo: version 0, the algorithm, the key as an OCTET STRING. */
  private static byte[] wrap(byte[] algorithm, byte[] key) {
    return tlv(0x30, concat(new byte[] {2, 1, 0}, algorithm, tlv(0x04, key)));
  }

  private static byte[] sequence(byte[]... parts) {
    return tlv(0x30, concat(parts));
  }

  /** The named curve's OID from a SEC1 ECPrivateKey's [0] parameters. */
  private static byte[] curveOf(byte[] sec1) {
    int i = headerLength(sec1, 0); // into the SEQUENCE
    while (i < sec1.length) {
      int tag = sec1[i] & 0xff;
      int header = headerLength(sec1, i);
      int length = length(sec1, i);
      if (tag == 0xa0) {
        byte[] oid = new byte[length];
        System.arraycopy(sec1, i + header, oid, 0, length);
        return oid;
      }
      i += header + length;
    }
    throw new IllegalArgumentException("an EC private key without a named curve");
  }

  private static int headerLength(byte[] der, int at) {
    int first = der[at + 1] & 0xff;
    return first < 0x80 ? 2 : 2 + (first & 0x7f);
  }

  private static int length(byte[] der, int at) {
    int first = der[at + 1] & 0xff;
    if (first < 0x80) {
      return first;
    }
    int n = 0;
    for (int k = 0; k < (first & 0x7f); k++) {
      n = (n << 8) | (der[at + 2 + k] & 0xff);
    }
    return n;
  }

  private static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int n = value.length;
    if (n < 0x80) {
      out.write(n);
    } else if (n < 0x100) {
      out.write(0x81);
      out.write(n);
    } else if (n < 0x10000) {
      out.write(0x82);
      out.write(n >> 8);
      out.write(n);
    } else {
      out.write(0x83);
      out.write(n >> 16);
      out.write(n >> 8);
      out.write(n);
    }
    out.writeBytes(value);
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
