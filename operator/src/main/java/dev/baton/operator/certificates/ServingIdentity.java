package dev.baton.operator.certificates;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The webhook server's certificate and key, swapped in place when they are renewed: every TLS
 * handshake after the swap presents the new one, and connections already open go on with the old,
 * which stays valid until well after its renewal.
 */
public final class ServingIdentity extends X509ExtendedKeyManager {

  /**
   * One certificate and the alias it is served under. A handshake asks for the alias first and for
   * the chain and key after; each renewal gets an alias of its own, and the one before stays
   * answerable, so a swap in between never pairs one certificate with the other's key.
   */
  private record Served(String alias, Certificates.Issued issued) {}

  private final AtomicReference<Served> current = new AtomicReference<>();
  private final AtomicReference<Served> previous = new AtomicReference<>();
  private final AtomicLong generation = new AtomicLong();

  /** The certificate served now, or null before the first one. */
  public Certificates.Issued current() {
    Served s = current.get();
    return s == null ? null : s.issued();
  }

  public synchronized void serve(Certificates.Issued issued) {
    previous.set(
        current.getAndSet(new Served("baton-webhook-" + generation.incrementAndGet(), issued)));
  }

  private String aliasFor(String keyType) {
    Served s = current.get();
    // The JDK asks by key type ("EC", "RSA", "RSASSA-PSS"): answer only for the kind of key held.
    return s != null && keyType != null && keyType.contains(s.issued().key().getAlgorithm())
        ? s.alias()
        : null;
  }

  private Certificates.Issued byAlias(String alias) {
    for (Served s : new Served[] {current.get(), previous.get()}) {
      if (s != null && s.alias().equals(alias)) {
        return s.issued();
      }
    }
    return null;
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return aliasFor(keyType);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return aliasFor(keyType);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    String alias = aliasFor(keyType);
    return alias == null ? null : new String[] {alias};
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Certificates.Issued c = byAlias(alias);
    return c == null ? null : new X509Certificate[] {c.certificate()};
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Certificates.Issued c = byAlias(alias);
    return c == null ? null : c.key();
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return null;
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return null;
  }
}
