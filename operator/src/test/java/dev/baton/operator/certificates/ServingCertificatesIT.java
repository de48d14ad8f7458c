package dev.baton.operator.certificates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.injection.AdmissionServer;
import dev.baton.operator.injection.AgentInjector;
import dev.baton.operator.replica.ReplicaClients;
import dev.baton.testkit.ApiRequestLog;
import dev.baton.testkit.EmbeddedKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two operator replicas keep one CA and their own serving certificates against the embedded API
 * server while a client, trusting only the webhook configuration's caBundle as read at each call
 * and checking the Service's DNS name, as kube-apiserver does, calls both throughout: they create
 * the CA at once (one wins, the other adopts it), renew their certificates, rotate the CA at once
 * nine years in, and drop the old CA from the caBundle once it expired. The clock is the test's,
 * moved by steps; the client judges validity by the same clock.
 */
class ServingCertificatesIT {

  private static final String NS = "baton-system";
  private static final String SECRET = "baton-baton-operator-webhook-ca";
  private static final String CONFIGURATION = "baton-baton-operator-baton-system";
  private static final String HOST = "baton-baton-operator-webhook." + NS + ".svc";

  /**
   * The defaults' proportions, shortened so that a CA's whole life is a few dozen steps: a CA of
   * 120 days rotated 40 before its end, serving certificates of 30 days renewed 10 before theirs.
   */
  private static final ServingCertificates.Lifetimes LIFETIMES =
      new ServingCertificates.Lifetimes(
          Duration.ofDays(120), Duration.ofDays(40), Duration.ofDays(30), Duration.ofDays(10));

  /**
   * Less than half the serving certificates' renewal margin: one due in the check right after a CA
   * rotation waits one more check (for the caBundle to have held the new CA a while), and must
   * still be valid then.
   */
  private static final int STEP_DAYS = 4;

  private static final int DAYS = 140;

  /** A clock the test moves. */
  static final class MovableClock extends Clock {
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.now());

    void advance(Duration d) {
      now.updateAndGet(i -> i.plus(d));
    }

    @Override
    public Instant instant() {
      return now.get();
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  /** One replica: its client (named as the operator's), certificate keeper and server. */
  private record Replica(
      KubernetesClient client,
      ServingIdentity identity,
      ServingCertificates keeper,
      AdmissionServer server) {}

  private EmbeddedKubernetes kube;
  private final MovableClock clock = new MovableClock();
  private final List<Replica> replicas = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    kube = EmbeddedKubernetes.start();
    kube.client().genericKubernetesResources(CaBundle.WEBHOOKS).resource(configuration()).create();
    for (String id : List.of("replica-a", "replica-b")) {
      Map<String, String> env = new HashMap<>();
      env.put(ApiRequestLog.IDENTITY, id);
      env.put("BATON_WEBHOOK_ENABLED", "true");
      ApiRequestLog.operatorStarting(env);
      KubernetesClient client = ReplicaClients.named(kube.newClient(), id);
      ServingIdentity identity = new ServingIdentity();
      replicas.add(
          new Replica(
              client,
              identity,
              new ServingCertificates(
                  client,
                  NS,
                  SECRET,
                  CONFIGURATION,
                  List.of(HOST, "baton-baton-operator-webhook"),
                  LIFETIMES,
                  clock,
                  identity),
              AdmissionServer.start(
                  0,
                  identity,
                  new AgentInjector(
                      (ns, labels) -> Optional.empty(),
                      new AgentInjector.Settings("image", null, true, false)))));
    }
  }

  @AfterEach
  void stop() {
    replicas.forEach(
        r -> {
          r.server().close();
          r.client().close();
        });
    kube.close();
  }

  @Test
  void bothReplicasServeThroughRenewalsAndARotationOfTheirOneCa() throws Exception {
    checkAtOnce();
    X509Certificate firstCa = storedCa();
    assertThat(bundle()).as("one CA, the Secret's").singleElement().isEqualTo(firstCa);
    assertThat(replicas)
        .allSatisfy(r -> assertIssuedBy(r.identity().current().certificate(), firstCa));

    AtomicBoolean probing = new AtomicBoolean(true);
    AtomicLong calls = new AtomicLong();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    CompletableFuture<Void> prober =
        CompletableFuture.runAsync(
            () -> {
              while (probing.get()) {
                for (Replica r : replicas) {
                  try {
                    WebhookCall.post(r.server().port(), HOST, bundle(), clock);
                    calls.incrementAndGet();
                  } catch (Exception e) {
                    Throwable root = e;
                    while (root.getCause() != null) {
                      root = root.getCause();
                    }
                    failures.add(
                        clock.instant()
                            + " replica on "
                            + r.server().port()
                            + ": "
                            + e
                            + ", "
                            + root);
                  }
                }
              }
            });
    List<X509Certificate> cas = new ArrayList<>(List.of(firstCa));
    Set<String> servedSerials = new java.util.HashSet<>();
    boolean oldCaDropped = false;
    int rotatedAt = -1;
    try {
      // A CA's life and some, in steps, the replicas checking after each as their timer would
      // (every minute in a cluster), both at once.
      for (int day = 0; day < DAYS; day += STEP_DAYS) {
        clock.advance(Duration.ofDays(STEP_DAYS));
        checkAtOnce();
        serving().forEach(c -> servedSerials.add(c.getSerialNumber().toString(16)));
        X509Certificate ca = storedCa();
        if (!cas.get(cas.size() - 1).equals(ca)) {
          cas.add(ca);
          rotatedAt = day;
          assertThat(bundle()).as("new CA first, the old one kept").containsExactly(ca, firstCa);
        }
        X509Certificate current = ca;
        if (cas.size() == 1 || rotatedAt < day) {
          assertThat(serving()).allSatisfy(c -> assertIssuedBy(c, current));
        } else {
          assertThat(serving())
              .as("a new CA's certificates only a check after the caBundle held it")
              .allSatisfy(c -> assertIssuedBy(c, firstCa));
        }
        if (cas.size() == 2 && bundle().size() == 1) {
          oldCaDropped = true;
        }
        awaitCalls(calls, 4);
      }
    } finally {
      probing.set(false);
      prober.join();
    }
    assertThat(cas).as("the CA was rotated once, by one replica, and both adopted it").hasSize(2);
    assertThat(oldCaDropped).as("the expired CA left the caBundle").isTrue();
    assertThat(bundle()).containsExactly(cas.get(1));
    assertThat(servedSerials.size())
        .as("serving certificates renewed about every 20 days, by each replica")
        .isGreaterThan(2 * DAYS / 30);
    assertThat(calls.get()).isGreaterThan(4L * DAYS / STEP_DAYS);
    assertThat(failures).as("calls refused while the certificates changed").isEmpty();
  }

  /** Both replicas check at the same moment: the API server decides who writes the Secret. */
  private void checkAtOnce() throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    for (Replica r : replicas) {
      runs.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                r.keeper().check();
              }));
    }
    go.countDown();
    CompletableFuture.allOf(runs.toArray(new CompletableFuture[0])).get();
  }

  private static void awaitCalls(AtomicLong calls, int more) {
    long from = calls.get();
    await()
        .pollInterval(Duration.ofMillis(5))
        .atMost(Duration.ofSeconds(30))
        .until(() -> calls.get() >= from + more);
  }

  private List<X509Certificate> serving() {
    return replicas.stream().map(r -> r.identity().current().certificate()).toList();
  }

  private X509Certificate storedCa() {
    Secret s = kube.client().secrets().inNamespace(NS).withName(SECRET).get();
    return Certificates.certificates(
            new String(
                Base64.getDecoder().decode(s.getData().get("ca.crt")), StandardCharsets.US_ASCII))
        .get(0);
  }

  private List<X509Certificate> bundle() {
    GenericKubernetesResource config =
        kube.client().genericKubernetesResources(CaBundle.WEBHOOKS).withName(CONFIGURATION).get();
    String caBundle =
        Serialization.jsonMapper()
            .valueToTree(config)
            .path("webhooks")
            .get(0)
            .path("clientConfig")
            .path("caBundle")
            .asText("");
    return caBundle.isEmpty()
        ? List.of()
        : Certificates.certificates(
            new String(Base64.getDecoder().decode(caBundle), StandardCharsets.US_ASCII));
  }

  private static void assertIssuedBy(X509Certificate cert, X509Certificate ca) {
    assertThat(ServingCertificates.issuedBy(cert, ca))
        .as("%s issued by %s", cert.getSubjectX500Principal(), ca.getSubjectX500Principal())
        .isTrue();
  }

  private static GenericKubernetesResource configuration() {
    String yaml =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: MutatingWebhookConfiguration
        metadata:
          name: %s
        webhooks:
          - name: agent.baton.dev
            admissionReviewVersions: ["v1"]
            sideEffects: None
            clientConfig:
              service: {name: baton-baton-operator-webhook, namespace: %s, path: /mutate-pods, port: 443}
            rules:
              - {operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}
        """
            .formatted(CONFIGURATION, NS);
    return Serialization.unmarshal(
        new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)),
        GenericKubernetesResource.class);
  }
}
