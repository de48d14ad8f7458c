package dev.baton.operator.injection;

import dev.baton.client.DaemonThreads;
import dev.baton.operator.certificates.MountedCertificate;
import dev.baton.operator.certificates.ServingCertificates;
import dev.baton.operator.certificates.ServingIdentity;
import dev.baton.operator.config.WebhookConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent injection webhook of one operator replica: its serving certificate, kept by the
 * operator ({@link ServingCertificates}) or read from cert-manager's Secret ({@link
 * MountedCertificate}) and looked at again every minute, and its HTTPS server. Every replica
 * serves, active or standby: the webhook only reads the LeaderGroup cache, which every replica
 * keeps warm. Made by {@link #start}, which its components come from.
 *
 * @param identity the certificate served now
 * @param timer looks at the certificate again every {@link #CHECK_EVERY}
 * @param client this replica's own, which the webhook closes with itself
 */
public record AgentWebhook(
    ServingIdentity identity,
    AdmissionServer server,
    ScheduledExecutorService timer,
    KubernetesClient client)
    implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AgentWebhook.class);

  /** How often the certificates are looked at: renewal is due weeks ahead, a CA change minutes. */
  static final Duration CHECK_EVERY = Duration.ofMinutes(1);

  /**
   * @param operatorNamespace the operator's namespace, when the configuration names none
   * @param client this replica's own, which the webhook closes with itself
   */
  public static AgentWebhook start(
      WebhookConfig config,
      Supplier<String> operatorNamespace,
      KubernetesClient client,
      AgentInjector.Groups groups,
      Clock clock)
      throws IOException {
    String namespace = config.namespace() != null ? config.namespace() : operatorNamespace.get();
    ServingIdentity identity = new ServingIdentity();
    Runnable check;
    if (config.certDir() != null) {
      check = new MountedCertificate(Path.of(config.certDir()), identity)::check;
    } else {
      check =
          new ServingCertificates(
                  client,
                  namespace,
                  config.caSecret(),
                  config.configuration(),
                  config.dnsNames(),
                  ServingCertificates.Lifetimes.defaults(),
                  clock,
                  identity)
              ::check;
    }
    Runnable guarded =
        () -> {
          try {
            check.run();
          } catch (RuntimeException e) {
            log.warn("Webhook certificate: {}; trying again in {}", e.getMessage(), CHECK_EVERY);
          }
        };
    guarded.run();
    boolean nativeSidecar =
        config.nativeSidecar() != null ? config.nativeSidecar() : nativeSidecars(client);
    AgentInjector injector =
        new AgentInjector(
            groups,
            new AgentInjector.Settings(
                config.agentImage(),
                config.agentRedisSecret(),
                nativeSidecar,
                config.groupRedisUsers()));
    AdmissionServer server = AdmissionServer.start(config.port(), identity, injector);
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("baton-webhook-certs"));
    timer.scheduleWithFixedDelay(
        guarded, CHECK_EVERY.toSeconds(), CHECK_EVERY.toSeconds(), TimeUnit.SECONDS);
    log.info(
        "Agent injection webhook on port {} ({}), injecting {} as {}",
        server.port(),
        config.certDir() != null ? "certificate from " + config.certDir() : "operator's own CA",
        config.agentImage(),
        nativeSidecar ? "a native sidecar" : "a second container (Kubernetes before 1.29)");
    return new AgentWebhook(identity, server, timer, client);
  }

  /**
   * Native sidecars (an init container with restartPolicy: Always) are on by default from
   * Kubernetes 1.29. Before it, the API server drops the init container's restartPolicy (1.28 with
   * the feature gate off) or refuses the field, and the agent would block the pod's start as an
   * init container that never ends: a plain container then.
   */
  static boolean nativeSidecars(KubernetesClient client) {
    try {
      VersionInfo v = client.getKubernetesVersion();
      int major = Integer.parseInt(v.getMajor().replaceAll("[^0-9]", ""));
      int minor = Integer.parseInt(v.getMinor().replaceAll("[^0-9]", ""));
      return major > 1 || minor >= 29;
    } catch (RuntimeException e) {
      log.warn(
          "The API server's version is unknown ({}): injecting native sidecars (Kubernetes 1.29+);"
              + " set {}=false for an older cluster",
          e.getMessage(),
          WebhookConfig.NATIVE_SIDECAR);
      return true;
    }
  }

  /** Whether a certificate is there to serve with. */
  public boolean serving() {
    return identity.current() != null;
  }

  public int port() {
    return server.port();
  }

  /** Names no component: the identity holds the serving key. */
  @Override
  public String toString() {
    return "AgentWebhook on port " + port();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    server.close();
    client.close();
  }
}
