package dev.baton.operator.certificates;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this replica's webhook serving certificate, as Kyverno and Gatekeeper do, without a second
 * project: the CA comes from (or goes into) a Secret every replica shares ({@link CaSecret}), the
 * webhook configuration's caBundle is made to hold it ({@link CaBundle}), and this replica's
 * serving certificate is issued by it and renewed well before it expires. Each {@link #check} does
 * what is due and nothing else; run at start and then every minute.
 */
public final class ServingCertificates {

  private static final Logger log = LoggerFactory.getLogger(ServingCertificates.class);

  /**
   * How long certificates live and how long before their end they are replaced.
   *
   * @param caRenewBefore a CA with less left than this is rotated: a new one signs from then on,
   *     and the old one stays in the caBundle until it expires
   * @param servingRenewBefore a serving certificate with less left than this is replaced
   */
  public record Lifetimes(
      Duration caValidity,
      Duration caRenewBefore,
      Duration servingValidity,
      Duration servingRenewBefore) {

    /** Ten years, rotated with one left; serving certificates of 90 days, renewed at 60. */
    public static Lifetimes defaults() {
      return new Lifetimes(
          Duration.ofDays(3650), Duration.ofDays(365), Duration.ofDays(90), Duration.ofDays(30));
    }
  }

  private final CaSecret store;
  private final CaBundle bundle;
  private final List<String> dnsNames;
  private final Lifetimes lifetimes;
  private final Clock clock;
  private final ServingIdentity identity;

  /** The CA the caBundle held at the last check, or null. */
  private X509Certificate trustedAtLastCheck;

  /**
   * @param webhookConfiguration the MutatingWebhookConfiguration whose caBundle is kept, or null
   * @param dnsNames the Service's names, first the one the API server dials
   */
  public ServingCertificates(
      KubernetesClient client,
      String namespace,
      String caSecret,
      String webhookConfiguration,
      List<String> dnsNames,
      Lifetimes lifetimes,
      Clock clock,
      ServingIdentity identity) {
    this.store = new CaSecret(client, namespace, caSecret);
    this.bundle = new CaBundle(client, webhookConfiguration);
    this.dnsNames = List.copyOf(dnsNames);
    this.lifetimes = lifetimes;
    this.clock = clock;
    this.identity = identity;
  }

  /**
   * One pass: the CA read (made if there is none, rotated if it ends soon), the caBundle made to
   * hold it, and the serving certificate issued if there is none, if it ends soon, or if the CA
   * changed and the caBundle has trusted the new one since the check before.
   */
  public synchronized void check() {
    Instant now = clock.instant();
    CaSecret.Authority ca = store.load();
    if (ca == null) {
      ca = store.createIfAbsent(new CaSecret.Authority(newCa(now), null, null));
      log.info("Webhook CA in {}: {}", store.describe(), subject(ca.current().certificate()));
    }
    if (endsWithin(ca.current().certificate(), now, lifetimes.caRenewBefore())) {
      CaSecret.Authority rotated =
          store.replace(ca, new CaSecret.Authority(newCa(now), ca.current().certificate(), null));
      if (!Certificates.same(rotated.current().certificate(), ca.current().certificate())) {
        log.info(
            "Webhook CA rotated in {}: the one before stays trusted until {}",
            store.describe(),
            ca.current().certificate().getNotAfter().toInstant());
      }
      ca = rotated;
    }
    boolean trustedNow = bundle.holds(ca, now);
    // The API server reads the caBundle through its own cache: a certificate of a new CA is served
    // only once this replica saw that CA in the caBundle at an earlier check too (a minute before).
    boolean trustedBefore =
        trustedAtLastCheck != null
            && Certificates.same(trustedAtLastCheck, ca.current().certificate());
    trustedAtLastCheck = trustedNow ? ca.current().certificate() : null;
    Certificates.Issued serving = identity.current();
    boolean fromCurrentCa =
        serving != null && issuedBy(serving.certificate(), ca.current().certificate());
    boolean due =
        serving != null && endsWithin(serving.certificate(), now, lifetimes.servingRenewBefore());
    boolean expired = serving != null && endsWithin(serving.certificate(), now, Duration.ZERO);
    if (serving == null
        || (!fromCurrentCa && trustedBefore)
        || (due && (fromCurrentCa || trustedBefore || expired))) {
      identity.serve(issue(ca.current(), now));
      log.info(
          "Webhook serving certificate issued for {}, valid until {}",
          dnsNames.get(0),
          identity.current().certificate().getNotAfter().toInstant());
    }
  }

  private Certificates.Issued newCa(Instant now) {
    return Certificates.authority(
        "baton-webhook-ca@" + now.getEpochSecond(),
        now.minus(Duration.ofMinutes(5)),
        now.plus(lifetimes.caValidity()));
  }

  /** Never past its CA's own end. */
  private Certificates.Issued issue(Certificates.Issued ca, Instant now) {
    Instant end = now.plus(lifetimes.servingValidity());
    Instant caEnd = ca.certificate().getNotAfter().toInstant();
    return Certificates.serving(
        ca,
        dnsNames,
        // A little before now: a node whose clock is behind still accepts it.
        now.minus(Duration.ofMinutes(5)),
        end.isAfter(caEnd) ? caEnd : end);
  }

  private static boolean endsWithin(X509Certificate c, Instant now, Duration margin) {
    return !c.getNotAfter().toInstant().isAfter(now.plus(margin));
  }

  static boolean issuedBy(X509Certificate cert, X509Certificate ca) {
    try {
      cert.verify(ca.getPublicKey());
      return true;
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static String subject(X509Certificate c) {
    return c.getSubjectX500Principal().getName() + ", until " + c.getNotAfter().toInstant();
  }
}
