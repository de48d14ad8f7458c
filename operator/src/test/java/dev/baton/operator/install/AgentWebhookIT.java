package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.injection.AgentPermissions;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator's webhook as the API server calls it: the chart's MutatingWebhookConfiguration
 * stored in the embedded API, which calls the operator over HTTPS for every labeled pod a
 * ReplicaSet would create (the relay example's pod template, generateName and no name), trusting
 * only the caBundle the operator wrote. Three replicas get the agent and one leads; the operator
 * writes their Role, RoleBinding and NetworkPolicy owned by the group, and (with per-group Redis
 * users) each agent logs in as the group's own Redis user; a pod created while the webhook does not
 * answer is created without the agent (failurePolicy Ignore), reported on its LeaderGroup and never
 * elected; under Fail it is not created; an invalid annotation is refused naming it.
 */
class AgentWebhookIT {

  private static final String SERVICE = HelmChart.fullname() + "-webhook";

  private EmbeddedKubernetes kube;
  private BatonCluster cluster;
  private MutatingWebhookConfiguration configuration;

  @BeforeEach
  void start() throws IOException {
    kube = EmbeddedKubernetes.start();
    cluster = new BatonCluster(kube);
    List<HasMetadata> chart = HelmChart.renderDefaults();
    configuration =
        cluster
            .client
            .resource(Manifests.single(chart, MutatingWebhookConfiguration.class))
            .create();
    // The operator's environment as the chart sets it (no Lease in this test).
    cluster
        .env("BATON_WEBHOOK_ENABLED", "true")
        .env("BATON_WEBHOOK_PORT", "0")
        .env("BATON_WEBHOOK_SERVICE", SERVICE)
        .env("BATON_WEBHOOK_NAMESPACE", HelmChart.NAMESPACE)
        .env("BATON_WEBHOOK_CA_SECRET", SERVICE + "-ca")
        .env("BATON_WEBHOOK_CONFIGURATION", configuration.getMetadata().getName())
        .env("BATON_AGENT_IMAGE", "ghcr.io/baton-dev/baton-operator:0.2.0")
        // A Redis user per group, as examples/operator-values.yaml turns it on.
        .env("BATON_REDIS_ACL_PER_GROUP", "true")
        .startOperator();
    answering(true);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** Routes the webhook's Service to the operator, or to a port where nothing answers. */
  private void answering(boolean yes) throws IOException {
    int port;
    if (yes) {
      port = cluster.operator().webhookPort();
    } else {
      try (ServerSocket closed = new ServerSocket(0)) {
        port = closed.getLocalPort();
      }
    }
    kube.routeService(HelmChart.NAMESPACE, SERVICE, 443, new InetSocketAddress("127.0.0.1", port));
  }

  @Test
  void injectsTheAgentKeepsItsPermissionsAndReportsAPodCreatedWhileNoWebhookAnswered()
      throws Exception {
    cluster.create(Sandbox.group("orders", "orders"));
    await().atMost(Duration.ofSeconds(20)).until(() -> caBundleWritten());

    List<String> injected = List.of(createPod(), createPod(), createPod());
    for (String name : injected) {
      Pod pod = cluster.pod(name);
      assertThat(pod.getSpec().getInitContainers())
          .as(name)
          .singleElement()
          .satisfies(c -> assertThat(c.getName()).isEqualTo("baton-agent"));
      ready(name);
    }
    String leader = cluster.awaitLeader("orders", BatonCluster.ROLE);
    assertThat(injected).contains(leader);
    String uid = cluster.get("orders").getMetadata().getUid();
    // Each agent logs in to Redis as the group's own user, from the Secret the operator makes in
    // the namespace, never with the operator's Secret (baton-redis).
    for (String name : injected) {
      assertThat(redisSecrets(cluster.pod(name))).as(name).containsOnly("baton-redis-orders");
    }
    Secret own =
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    cluster
                        .client
                        .secrets()
                        .inNamespace(Sandbox.NS)
                        .withName("baton-redis-orders")
                        .get(),
                Objects::nonNull);
    assertThat(new String(Base64.getDecoder().decode(own.getData().get("username"))))
        .isEqualTo("baton-group:shop/orders");
    assertThat(own.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(r -> assertThat(r.getUid()).isEqualTo(uid));
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              var role = inShop(Role.class, AgentPermissions.roleName("orders"));
              var binding = inShop(RoleBinding.class, AgentPermissions.roleName("orders"));
              var policy = inShop(NetworkPolicy.class, AgentPermissions.policyName("orders"));
              for (HasMetadata o : new HasMetadata[] {role, binding, policy}) {
                assertThat(o).isNotNull();
                assertThat(o.getMetadata().getOwnerReferences())
                    .singleElement()
                    .satisfies(r -> assertThat(r.getUid()).isEqualTo(uid));
              }
              assertThat(binding.getSubjects())
                  .singleElement()
                  .satisfies(s -> assertThat(s.getName()).isEqualTo("orders"));
            });
    cluster.awaitCondition("orders", "AgentInjected", "True");

    // The webhook stops answering: with failurePolicy Ignore the pod is created as it was sent.
    answering(false);
    String bare = createPod();
    assertThat(cluster.pod(bare).getSpec().getInitContainers()).isEmpty();
    ready(bare);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertAgentInjected("False", "AgentMissing", bare);
              assertThat(cluster.events("orders"))
                  .anySatisfy(
                      e -> {
                        assertThat(e.getReason()).isEqualTo("AgentMissing");
                        assertThat(e.getMessage()).contains("pod " + bare);
                      });
              assertAgentPods("missing");
            });
    // Never elected: the leader goes, and one of the injected pods follows it.
    cluster.deletePod(leader);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(cluster.leaders(BatonCluster.ROLE))
                  .hasSize(1)
                  .doesNotContain(leader, bare);
            });
    assertThat(cluster.leaders(BatonCluster.ROLE)).isNotEqualTo(List.of(bare));
  }

  @Test
  void refusesAnInvalidAnnotationAndUnderFailPolicyAPodWhileNoWebhookAnswers() throws Exception {
    cluster.create(Sandbox.group("orders", "orders"));
    await().atMost(Duration.ofSeconds(20)).until(() -> caBundleWritten());

    Pod invalid = template();
    invalid.getMetadata().getAnnotations().put("baton.dev/app-port", "eighty");
    assertThatThrownBy(
            () -> cluster.client.pods().inNamespace(Sandbox.NS).resource(invalid).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("admission webhook \"agent.baton.dev\" denied the request")
        .hasMessageContaining("baton.dev/app-port: 'eighty' is not a port");

    // A pod injected by an earlier operator: left as it is, and reported as outdated.
    Pod earlier = template();
    earlier
        .getSpec()
        .getInitContainers()
        .add(0, agentOf(injectedPod(), "ghcr.io/baton-dev/baton-operator:0.1.0"));
    earlier
        .getSpec()
        .getVolumes()
        .addAll(
            injectedPod().getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals("baton-agent-token"))
                .toList());
    String old =
        cluster
            .client
            .pods()
            .inNamespace(Sandbox.NS)
            .resource(earlier)
            .create()
            .getMetadata()
            .getName();
    assertThat(cluster.pod(old).getSpec().getInitContainers())
        .singleElement()
        .satisfies(c -> assertThat(c.getImage()).endsWith(":0.1.0"));
    ready(old);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertAgentInjected(
                  "True", "AgentOutdated", old + " (ghcr.io/baton-dev/baton-operator:0.1.0)");
              assertAgentPods("outdated");
            });

    var stored = webhookConfiguration();
    stored.edit(
        c -> {
          c.getWebhooks().get(0).setFailurePolicy("Fail");
          return c;
        });
    answering(false);
    assertThatThrownBy(
            () -> cluster.client.pods().inNamespace(Sandbox.NS).resource(template()).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("failed calling webhook \"agent.baton.dev\"");
    assertThat(cluster.pods()).as("nothing created under Fail").hasSize(1);
  }

  /** The object of this kind and name in the pods' namespace, or null. */
  private <T extends HasMetadata> T inShop(Class<T> kind, String name) {
    return cluster.client.resources(kind).inNamespace(Sandbox.NS).withName(name).get();
  }

  /** The group's AgentInjected condition: its status, its reason, a message naming {@code pods}. */
  private void assertAgentInjected(String status, String reason, String pods) {
    cluster
        .assertCondition("orders", "AgentInjected")
        .hasStatus(status)
        .hasReason(reason)
        .hasMessageContaining(pods);
  }

  /** The operator's metric counts one of the group's pods whose agent is in {@code state}. */
  private void assertAgentPods(String state) {
    assertThat(cluster.operator().registry().scrape())
        .containsPattern(
            "baton_leadergroup_agent_pods\\{group=\"orders\",namespace=\"shop\","
                + "state=\""
                + state
                + "\",?\\} 1\\.0");
  }

  /** A pod of the template as this operator injects it. */
  private Pod injectedPod() throws IOException {
    Pod pod = cluster.client.pods().inNamespace(Sandbox.NS).resource(template()).dryRun().create();
    assertThat(pod.getSpec().getInitContainers()).as("injected on a dry run too").hasSize(1);
    return pod;
  }

  private static io.fabric8.kubernetes.api.model.Container agentOf(Pod pod, String image) {
    var agent = Serialization.clone(pod.getSpec().getInitContainers().get(0));
    agent.setImage(image);
    return agent;
  }

  /** The chart's MutatingWebhookConfiguration, as the API server keeps it. */
  private Resource<MutatingWebhookConfiguration> webhookConfiguration() {
    return cluster
        .client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .withName(configuration.getMetadata().getName());
  }

  private boolean caBundleWritten() {
    var c = webhookConfiguration().get();
    return c.getWebhooks().get(0).getClientConfig().getCaBundle() != null;
  }

  /** A pod of the relay example's Deployment, as its ReplicaSet sends it: no name yet. */
  private static Pod template() throws IOException {
    PodTemplateSpec t =
        Manifests.single(
                Manifests.parse(
                    Files.readString(InstallFiles.EXAMPLES.resolve("agent-relay.yaml")),
                    "agent-relay.yaml"),
                Deployment.class)
            .getSpec()
            .getTemplate();
    return new PodBuilder()
        .withMetadata(Serialization.clone(t.getMetadata()))
        .editMetadata()
        .withGenerateName("orders-7c9d8b6f5-")
        .endMetadata()
        .withSpec(Serialization.clone(t.getSpec()))
        .build();
  }

  /** The Secrets the pod's agent takes its environment from. */
  private static Set<String> redisSecrets(Pod pod) {
    return pod.getSpec().getInitContainers().get(0).getEnv().stream()
        .filter(e -> e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null)
        .map(e -> e.getValueFrom().getSecretKeyRef().getName())
        .collect(Collectors.toSet());
  }

  private String createPod() throws IOException {
    return cluster
        .client
        .pods()
        .inNamespace(Sandbox.NS)
        .resource(template())
        .create()
        .getMetadata()
        .getName();
  }

  /**
   * What the kubelet would report once the pod runs; written over the version read, and read again
   * when the operator's label patch came in between (409), as a kubelet does.
   */
  private void ready(String name) {
    for (int attempt = 1; ; attempt++) {
      try {
        cluster
            .client
            .pods()
            .inNamespace(Sandbox.NS)
            .withName(name)
            .editStatus(
                p -> {
                  if (p.getStatus() == null) {
                    p.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
                  }
                  p.getStatus().setPhase("Running");
                  p.getStatus().setPodIP("10.244.0." + (10 + Math.floorMod(name.hashCode(), 200)));
                  p.getStatus().setConditions(List.of(Sandbox.readyCondition(true)));
                  return p;
                });
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }
}
