package dev.baton.operator.install;

import static dev.baton.operator.install.ExampleChecks.FOLLOWER;
import static dev.baton.operator.install.ExampleChecks.LEADER;
import static dev.baton.operator.install.ExampleChecks.assertLockWorks;
import static dev.baton.operator.install.ExampleChecks.assertPortsResolve;
import static dev.baton.operator.install.ExampleChecks.assertWorks;
import static dev.baton.operator.install.ExampleChecks.workloads;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.operator.testing.RestrictedPodSecurity;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every example in examples/ parses into typed objects and describes a LeaderGroup that works. */
class ExamplesTest {

  /** The manifests in examples/: every YAML file except Helm values files. */
  static Stream<String> manifests() throws IOException {
    try (Stream<Path> files = Files.walk(InstallFiles.EXAMPLES, 2)) {
      List<String> names =
          files
              .map(p -> InstallFiles.EXAMPLES.relativize(p).toString().replace('\\', '/'))
              .filter(n -> !n.contains("/") || n.startsWith("reference/"))
              .filter(n -> n.endsWith(".yaml") || n.endsWith(".yml"))
              .filter(n -> !n.endsWith("values.yaml"))
              .sorted()
              .collect(Collectors.toList());
      assertThat(names)
          .contains(
              "leader-deployment.yaml",
              "leader-statefulset.yaml",
              "leader-one-write.yaml",
              "redis-secret.yaml",
              "lock-granted.yaml",
              "lock-app-held.yaml",
              "lock-redlock.yaml",
              "leadership-worker.yaml",
              "agent-sidecar.yaml",
              "agent-relay.yaml",
              "reference/agent-sidecar.yaml",
              "reference/agent-relay.yaml");
      return names.stream();
    }
  }

  @ParameterizedTest
  @MethodSource("manifests")
  void everyExampleIsTypedAndItsLeaderGroupsWork(String file) throws IOException {
    List<HasMetadata> objects = parse(file);

    assertThat(objects).as(file).isNotEmpty();
    assertThat(objects)
        .as("examples are applied with -n and name no namespace")
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isNull());
    for (LeaderGroup group : Manifests.ofKind(objects, LeaderGroup.class)) {
      assertWorks(file, group, objects);
    }
    Map<String, PodTemplateSpec> workloads = workloads(objects);
    for (RedisLock lock : Manifests.ofKind(objects, RedisLock.class)) {
      assertLockWorks(file, lock, objects, workloads);
    }
    List<String> roleLabels =
        Manifests.ofKind(objects, LeaderGroup.class).stream()
            .map(g -> g.getSpec().getRoleLabel())
            .collect(Collectors.toList());
    for (Service service : Manifests.ofKind(objects, Service.class)) {
      Map<String, String> selector = new HashMap<>(service.getSpec().getSelector());
      roleLabels.forEach(selector::remove);
      assertThat(selector)
          .as(file + ": Service %s selector", service.getMetadata().getName())
          .isNotEmpty();
      assertThat(workloads.values())
          .as(file + ": Service %s selects the pods of a workload", service.getMetadata().getName())
          .anySatisfy(
              t -> assertThat(Manifests.selects(selector, t.getMetadata().getLabels())).isTrue());
      workloads.values().stream()
          .filter(t -> Manifests.selects(selector, t.getMetadata().getLabels()))
          .forEach(t -> assertPortsResolve(file, service, t));
    }
  }

  /**
   * Pod templates whose app talks to the Kubernetes API itself, and so keeps a service account
   * token: the Java worker follows its own pod (BatonLeadership.watchingPod).
   */
  private static final Set<String> APP_NEEDS_TOKEN = Set.of("leadership-worker.yaml");

  @ParameterizedTest
  @MethodSource("manifests")
  void everyPodTemplatePassesTheRestrictedPodSecurityLevel(String file) throws IOException {
    for (var w : workloads(parse(file)).entrySet()) {
      assertThat(
              RestrictedPodSecurity.violations(
                  w.getValue().getSpec(), APP_NEEDS_TOKEN.contains(file)))
          .as(file + ": " + w.getKey() + " under Pod Security 'restricted'")
          .isEmpty();
    }
  }

  @Test
  void deploymentExampleHasLeaderAndFollowerServices() throws IOException {
    List<HasMetadata> objects = parse("leader-deployment.yaml");

    Deployment deployment = Manifests.single(objects, Deployment.class);
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(3);
    LeaderGroup group = Manifests.single(objects, LeaderGroup.class);
    assertThat(group.getSpec().getRoleLabel()).isEqualTo(LeaderGroupSpec.DEFAULT_ROLE_LABEL);
    assertThat(dev.baton.client.BatonNames.DEFAULT_ROLE_LABEL)
        .as("the client library (and the agent) cannot depend on api: the two must agree")
        .isEqualTo(LeaderGroupSpec.DEFAULT_ROLE_LABEL);
    String name = group.getMetadata().getName();
    assertThat(Manifests.named(objects, Service.class, name + "-leader").getSpec().getSelector())
        .containsEntry("baton.dev/role", LEADER);
    assertThat(Manifests.named(objects, Service.class, name + "-followers").getSpec().getSelector())
        .containsEntry("baton.dev/role", FOLLOWER);
  }

  @Test
  void statefulSetExampleReadsTheTermThroughTheDownwardApi() throws IOException {
    List<HasMetadata> objects = parse("leader-statefulset.yaml");

    LeaderGroup group = Manifests.single(objects, LeaderGroup.class);
    String roleLabel = group.getSpec().getRoleLabel();
    assertThat(roleLabel).isNotEqualTo(LeaderGroupSpec.DEFAULT_ROLE_LABEL);

    PodTemplateSpec template = Manifests.single(objects, StatefulSet.class).getSpec().getTemplate();
    Volume downward =
        template.getSpec().getVolumes().stream()
            .filter(v -> v.getDownwardAPI() != null)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no downwardAPI volume"));
    Map<String, String> files =
        downward.getDownwardAPI().getItems().stream()
            .collect(Collectors.toMap(i -> i.getPath(), i -> i.getFieldRef().getFieldPath()));
    assertThat(files)
        .containsValue("metadata.annotations['baton.dev/term']")
        .containsValue("metadata.labels['" + roleLabel + "']");
    assertThat(template.getSpec().getContainers())
        .as("a container mounts the downward-API volume")
        .anySatisfy(
            c ->
                assertThat(c.getVolumeMounts())
                    .anySatisfy(m -> assertThat(m.getName()).isEqualTo(downward.getName())));
  }

  @Test
  void leadershipWorkerMayReadAndWatchItsOwnPodAndKnowsItsName() throws IOException {
    List<HasMetadata> objects = parse("leadership-worker.yaml");

    PodTemplateSpec template = Manifests.single(objects, Deployment.class).getSpec().getTemplate();
    String account = template.getSpec().getServiceAccountName();
    assertThat(Manifests.single(objects, ServiceAccount.class).getMetadata().getName())
        .isEqualTo(account);
    Role role = Manifests.single(objects, Role.class);
    assertThat(role.getRules())
        .anySatisfy(
            r -> {
              assertThat(r.getApiGroups()).containsExactly("");
              assertThat(r.getResources()).containsExactly("pods");
              assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "watch");
            });
    RoleBinding binding = Manifests.single(objects, RoleBinding.class);
    assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
    assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
    assertThat(binding.getSubjects())
        .anySatisfy(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getName()).isEqualTo(account);
            });
    Map<String, String> fieldRefs = new HashMap<>();
    template.getSpec().getContainers().get(0).getEnv().stream()
        .filter(e -> e.getValueFrom() != null && e.getValueFrom().getFieldRef() != null)
        .forEach(e -> fieldRefs.put(e.getName(), e.getValueFrom().getFieldRef().getFieldPath()));
    assertThat(fieldRefs)
        .containsEntry("POD_NAMESPACE", "metadata.namespace")
        .containsEntry("POD_NAME", "metadata.name")
        .containsEntry("POD_UID", "metadata.uid");
    LeaderGroup group = Manifests.single(objects, LeaderGroup.class);
    assertThat(
            template.getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals("LEADER_GROUP"))
                .map(e -> e.getValue()))
        .containsExactly(group.getMetadata().getName());
  }

  @Test
  void redisSecretExampleHasTheConnectionKeys() throws IOException {
    Secret secret = Manifests.single(parse("redis-secret.yaml"), Secret.class);

    assertThat(secret.getStringData()).containsOnlyKeys("url", "username", "password");
    assertThat(secret.getStringData().get("url")).matches("(redis|rediss|redis-sentinel)://[^@]+");
  }

  @Test
  void examplesReadmeListsEveryExample() throws IOException {
    String readme = Files.readString(InstallFiles.EXAMPLES.resolve("README.md"));

    assertThat(manifests()).allSatisfy(f -> assertThat(readme).contains("`" + f + "`"));
    assertThat(readme).contains("`operator-values.yaml`").contains("RedisLock");
  }

  @Test
  void refusesALeaderGroupThatSelectsNoWorkload() {
    String yaml =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: app}
        spec:
          selector: {matchLabels: {app: app}}
          template:
            metadata: {labels: {app: app}}
            spec: {containers: [{name: app, image: busybox}]}
        ---
        apiVersion: baton.dev/v1alpha1
        kind: LeaderGroup
        metadata: {name: app}
        spec:
          selector: {matchLabels: {app: ap}}
          lease: {ttl: 10s, renewInterval: 3s}
        """;
    List<HasMetadata> objects = Manifests.parse(yaml, "test");
    LeaderGroup group = Manifests.single(objects, LeaderGroup.class);

    assertThatThrownBy(() -> assertWorks("test", group, objects))
        .hasMessageContaining("pod template");
  }

  private static List<HasMetadata> parse(String file) throws IOException {
    return Manifests.parse(Files.readString(InstallFiles.EXAMPLES.resolve(file)), file);
  }
}
