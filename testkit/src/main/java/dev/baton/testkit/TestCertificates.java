package dev.baton.testkit;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throwaway certificate authority for TLS tests: made in memory (BouncyCastle builds the
 * certificates), valid for a day, issuing server certificates for 127.0.0.1 and localhost.
 */
public final class TestCertificates {

  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private final KeyPair caKeys;
  private final X509Certificate ca;

  private TestCertificates(KeyPair caKeys, X509Certificate ca) {
    this.caKeys = caKeys;
    this.ca = ca;
  }

  /** A new CA with the given common name. */
  public static TestCertificates newCa(String commonName) {
    try {
      KeyPair keys = keyPair();
      X500Name name = new X500Name("CN=" + commonName);
      X509v3CertificateBuilder b = builder(name, name, keys);
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      return new TestCertificates(keys, sign(b, keys.getPrivate()));
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot make a test CA", e);
    }
  }

  /** The CA certificate in PEM, as a Secret's ca.crt or a mounted file would hold it. */
  public String caPem() {
    return pem(ca);
  }

  /** A server key and certificate for 127.0.0.1 and localhost, signed by this CA. */
  public ServerFiles issueServer(Path dir) {
    try {
      KeyPair keys = keyPair();
      X509v3CertificateBuilder b =
          builder(
              new X500Name(ca.getSubjectX500Principal().getName()),
              new X500Name("CN=localhost"),
              keys);
      b.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                new GeneralName(GeneralName.dNSName, "localhost")
              }));
      b.addExtension(
          Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      X509Certificate cert = sign(b, caKeys.getPrivate());
      ServerFiles files =
          new ServerFiles(
              dir.resolve("server.crt"), dir.resolve("server.key"), dir.resolve("ca.crt"));
      Files.writeString(files.certificate(), pem(cert));
      Files.writeString(files.key(), pem(keys.getPrivate()));
      Files.writeString(files.ca(), caPem());
      return files;
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot issue a test server certificate", e);
    }
  }

  /** A TLS context that trusts this CA only, for the tests' own connections. */
  public SSLContext trustingContext() {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      store.setCertificateEntry("ca", ca);
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Paths of a server's PEM files. */
  public record ServerFiles(Path certificate, Path key, Path ca) {}

  private static KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))),
        Date.from(now.plus(Duration.ofDays(1))),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key)
      throws OperatorCreationException, GeneralSecurityException {
    return new JcaX509CertificateConverter()
        .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
  }

  private static String pem(X509Certificate cert) {
    try {
      return pem("CERTIFICATE", cert.getEncoded());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(PrivateKey key) {
    return pem("PRIVATE KEY", key.getEncoded());
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
