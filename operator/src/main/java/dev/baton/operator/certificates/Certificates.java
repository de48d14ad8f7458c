package dev.baton.operator.certificates;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes the webhook's certificate authority and serving certificates (ECDSA P-256, SHA-256), and
 * reads and writes them as PEM. What kube-apiserver's TLS client checks is what matters here: the
 * serving certificate names the Service's DNS names as subjectAltNames (Go ignores the common
 * name), and it chains to a CA with basicConstraints CA:true and keyCertSign.
 */
public final class Certificates {

  private static final String ECDSA_SHA256 = "1.2.840.10045.4.3.2";
  private static final String COMMON_NAME = "2.5.4.3";
  private static final String SUBJECT_KEY_ID = "2.5.29.14";
  private static final String KEY_USAGE = "2.5.29.15";
  private static final String SUBJECT_ALT_NAME = "2.5.29.17";
  private static final String BASIC_CONSTRAINTS = "2.5.29.19";
  private static final String AUTHORITY_KEY_ID = "2.5.29.35";
  private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

  private static final int DIGITAL_SIGNATURE = 0x80;
  private static final int KEY_CERT_SIGN = 0x04;
  private static final int CRL_SIGN = 0x02;

  private static final SecureRandom RANDOM = new SecureRandom();

  private Certificates() {}

  /** A certificate and its private key. */
  public record Issued(X509Certificate certificate, PrivateKey key) {}

  public static KeyPair newKeyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot make a P-256 key", e);
    }
  }

  /** A self-signed CA that signs serving certificates and nothing else. */
  public static Issued authority(String commonName, Instant notBefore, Instant notAfter) {
    KeyPair keys = newKeyPair();
    byte[] name = name(commonName);
    byte[] extensions =
        Der.sequence(
            extension(BASIC_CONSTRAINTS, true, Der.sequence(Der.bool(true))),
            extension(KEY_USAGE, true, Der.namedBits(KEY_CERT_SIGN | CRL_SIGN)),
            extension(SUBJECT_KEY_ID, false, Der.octets(keyId(keys.getPublic()))));
    X509Certificate ca =
        sign(name, name, keys.getPublic(), notBefore, notAfter, extensions, keys.getPrivate());
    return new Issued(ca, keys.getPrivate());
  }

  /** A serving certificate for these DNS names, signed by {@code ca}. */
  public static Issued serving(
      Issued ca, List<String> dnsNames, Instant notBefore, Instant notAfter) {
    KeyPair keys = newKeyPair();
    List<byte[]> names = new ArrayList<>();
    for (String dns : dnsNames) {
      names.add(Der.context(2, false, dns.getBytes(StandardCharsets.US_ASCII)));
    }
    byte[] extensions =
        Der.sequence(
            extension(BASIC_CONSTRAINTS, true, Der.sequence()),
            extension(KEY_USAGE, true, Der.namedBits(DIGITAL_SIGNATURE)),
            extension(EXTENDED_KEY_USAGE, false, Der.sequence(Der.oid(SERVER_AUTH))),
            extension(SUBJECT_ALT_NAME, false, Der.sequence(names.toArray(new byte[0][]))),
            extension(
                AUTHORITY_KEY_ID,
                false,
                Der.sequence(Der.context(0, false, keyId(ca.certificate().getPublicKey())))));
    X509Certificate cert =
        sign(
            ca.certificate().getSubjectX500Principal().getEncoded(),
            name(dnsNames.get(0)),
            keys.getPublic(),
            notBefore,
            notAfter,
            extensions,
            ca.key());
    return new Issued(cert, keys.getPrivate());
  }

  private static X509Certificate sign(
      byte[] issuer,
      byte[] subject,
      PublicKey key,
      Instant notBefore,
      Instant notAfter,
      byte[] extensions,
      PrivateKey signer) {
    byte[] algorithm = Der.sequence(Der.oid(ECDSA_SHA256));
    byte[] serial = new byte[16];
    RANDOM.nextBytes(serial);
    byte[] tbs =
        Der.sequence(
            Der.context(0, true, Der.integer(BigInteger.TWO)),
            Der.integer(new BigInteger(1, serial)),
            algorithm,
            issuer,
            Der.sequence(Der.time(notBefore), Der.time(notAfter)),
            subject,
            key.getEncoded(),
            Der.context(3, true, extensions));
    try {
      Signature s = Signature.getInstance("SHA256withECDSA");
      s.initSign(signer, RANDOM);
      s.update(tbs);
      byte[] der = Der.sequence(tbs, algorithm, Der.bits(s.sign()));
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(der));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("could not sign a certificate", e);
    }
  }

  private static byte[] name(String commonName) {
    return Der.sequence(Der.set(Der.sequence(Der.oid(COMMON_NAME), Der.utf8(commonName))));
  }

  private static byte[] extension(String oid, boolean critical, byte[] value) {
    return critical
        ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octets(value))
        : Der.sequence(Der.oid(oid), Der.octets(value));
  }

  /** RFC 5280's method (1) in spirit: a SHA-1 of the key, which only has to tell keys apart. */
  private static byte[] keyId(PublicKey key) {
    try {
      return MessageDigest.getInstance("SHA-1").digest(key.getEncoded());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  // --- PEM ---------------------------------------------------------------------------------------

  private static final Pattern PEM =
      Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");

  public static String pem(X509Certificate certificate) {
    try {
      return pem("CERTIFICATE", certificate.getEncoded());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** PKCS#8, which cert-manager writes too with {@code encoding: PKCS8}. */
  public static String pem(PrivateKey key) {
    return pem("PRIVATE KEY", key.getEncoded());
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  /** Every certificate in a PEM text, in order. */
  public static List<X509Certificate> certificates(String pem) {
    List<X509Certificate> out = new ArrayList<>();
    Matcher m = PEM.matcher(pem);
    while (m.find()) {
      if (!m.group(1).equals("CERTIFICATE")) {
        continue;
      }
      try {
        out.add(
            (X509Certificate)
                CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(decode(m.group(2)))));
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException("a PEM certificate that does not parse", e);
      }
    }
    return out;
  }

  /** The PKCS#8 private key of a PEM text, EC or RSA. */
  public static PrivateKey privateKey(String pem) {
    Matcher m = PEM.matcher(pem);
    while (m.find()) {
      if (!m.group(1).equals("PRIVATE KEY")) {
        continue;
      }
      byte[] der = decode(m.group(2));
      for (String algorithm : List.of("EC", "RSA")) {
        try {
          return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
          // try the next
        }
      }
      throw new IllegalArgumentException("a PKCS#8 key that is neither EC nor RSA");
    }
    throw new IllegalArgumentException("no 'PRIVATE KEY' (PKCS#8) block in the PEM text");
  }

  private static byte[] decode(String base64) {
    return Base64.getMimeDecoder().decode(base64.trim());
  }

  /** The same certificate (DER equality). */
  public static boolean same(X509Certificate a, X509Certificate b) {
    try {
      return Arrays.equals(a.getEncoded(), b.getEncoded());
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
