package dev.baton.operator.certificates;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serving certificate cert-manager issues into a Secret that the pod mounts ({@code
 * webhook.certManager.enabled}): {@code tls.crt} and {@code tls.key} (PKCS#8) read again on every
 * {@link #check}, so a renewal the kubelet has written to the volume is served from the next
 * handshake on. cert-manager's CA injector keeps the caBundle.
 */
public final class MountedCertificate {

  private static final Logger log = LoggerFactory.getLogger(MountedCertificate.class);

  private final Path dir;
  private final ServingIdentity identity;

  public MountedCertificate(Path dir, ServingIdentity identity) {
    this.dir = dir;
    this.identity = identity;
  }

  public synchronized void check() {
    String cert;
    String key;
    try {
      cert = Files.readString(dir.resolve("tls.crt"), StandardCharsets.US_ASCII);
      key = Files.readString(dir.resolve("tls.key"), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read tls.crt and tls.key in " + dir + ": " + e.getClass().getSimpleName());
    }
    List<X509Certificate> chain = Certificates.certificates(cert);
    if (chain.isEmpty()) {
      throw new IllegalStateException(dir.resolve("tls.crt") + " holds no certificate");
    }
    Certificates.Issued now = identity.current();
    if (now != null && Certificates.same(now.certificate(), chain.get(0))) {
      return;
    }
    identity.serve(new Certificates.Issued(chain.get(0), Certificates.privateKey(key)));
    log.info(
        "Webhook serving certificate read from {}, valid until {}",
        dir,
        chain.get(0).getNotAfter().toInstant());
  }
}
