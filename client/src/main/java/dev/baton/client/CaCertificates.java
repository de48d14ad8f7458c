package dev.baton.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * CA certificates in PEM that a rediss:// connection, the operator's or the agent's, trusts instead
 * of the JVM's defaults.
 */
public final class CaCertificates {

  private CaCertificates() {}

  /** Parses one or more PEM certificates; the message of a failure never repeats the text. */
  public static List<Certificate> parse(String pem) {
    if (pem == null || !pem.contains("-----BEGIN CERTIFICATE-----")) {
      throw new IllegalArgumentException(
          "the CA certificate is not in PEM format" + " (-----BEGIN CERTIFICATE-----)");
    }
    try {
      List<Certificate> out =
          new ArrayList<>(
              CertificateFactory.getInstance("X.509")
                  .generateCertificates(
                      new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII))));
      if (out.isEmpty()) {
        throw new IllegalArgumentException("the CA certificate PEM holds no certificate");
      }
      return out;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("the CA certificate cannot be read as X.509 PEM");
    }
  }

  /** Sockets that trust what {@code trust} trusts: a TLS connection made without the client. */
  public static SSLSocketFactory socketFactory(TrustManagerFactory trust) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context.getSocketFactory();
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot make a TLS context from the CA certificate: " + e.getClass().getSimpleName());
    }
  }

  /** A trust manager factory that trusts exactly these certificates. */
  public static TrustManagerFactory trustManagers(String pem) {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate c : parse(pem)) {
        store.setCertificateEntry("baton-redis-ca-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      return tmf;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException(
          "cannot build a trust store from the CA certificate: " + e.getClass().getSimpleName());
    }
  }
}
