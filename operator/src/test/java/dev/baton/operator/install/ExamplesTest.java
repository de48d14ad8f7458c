package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.LabelKeys;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.GoDuration;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.redislock.LockSettings;
import dev.baton.testkit.EndpointsController;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every example in examples/ parses into typed objects and describes a LeaderGroup that works. */
class ExamplesTest {

  private static final String LEADER = "leader";
  private static final String FOLLOWER = "follower";

  /** The manifests in examples/: every YAML file except Helm values files. */
  static Stream<String> manifests() throws IOException {
    try (Stream<Path> files = Files.list(InstallFiles.EXAMPLES)) {
      List<String> names =
          files
              .map(p -> p.getFileName().toString())
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
              "leadership-worker.yaml");
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
   * Every port of the Service resolves on the pods it selects as the EndpointSlice controller of
   * Kubernetes 1.29 to 1.32 resolves it (the test kit's, which only looks at the pod's containers,
   * not its init containers: a port declared only on a native sidecar is not found before 1.33). A
   * port that does not resolve leaves the slice without it, and kube-proxy refuses every connection
   * to the Service.
   */
  private static void assertPortsResolve(String file, Service service, PodTemplateSpec template) {
    Pod pod = new Pod();
    pod.setMetadata(template.getMetadata());
    pod.setSpec(template.getSpec());
    assertThat(EndpointsController.ports(service, pod))
        .as(
            file + ": Service %s's ports as a 1.29 API server resolves them on its pods",
            service.getMetadata().getName())
        .hasSameSizeAs(service.getSpec().getPorts());
  }

  /**
   * A RedisLock example passes the operator's own checks; its holderSelector selects the pods of a
   * workload in the same file; its Redlock Secrets are in the file too.
   */
  private static void assertLockWorks(
      String file,
      RedisLock lock,
      List<HasMetadata> objects,
      Map<String, PodTemplateSpec> workloads) {
    RedisLock applied = Serialization.clone(lock);
    applied.getMetadata().setNamespace("shop");
    assertThatCode(() -> LockSettings.of(applied))
        .as(file + ": RedisLock %s is valid", lock.getMetadata().getName())
        .doesNotThrowAnyException();
    var selector = lock.getSpec().getHolderSelector();
    if (selector != null) {
      assertThat(workloads.values())
          .as(file + ": RedisLock %s selects the pods of a workload", lock.getMetadata().getName())
          .anySatisfy(
              t ->
                  assertThat(LabelSelectors.matches(selector, t.getMetadata().getLabels()))
                      .isTrue());
    }
    if (lock.getSpec().getRedlock() != null) {
      List<String> secrets =
          Manifests.ofKind(objects, Secret.class).stream()
              .map(sec -> sec.getMetadata().getName())
              .toList();
      assertThat(lock.getSpec().getRedlock().getInstances())
          .as(file + ": Redlock instances name Secrets of the file")
          .allSatisfy(ref -> assertThat(secrets).contains(ref.getSecretRef().getName()));
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
  void refusesAnUnknownKind() {
    String yaml =
        """
        apiVersion: baton.dev/v1alpha1
        kind: LeaderGroupp
        metadata: {name: typo}
        spec: {selector: {matchLabels: {app: x}}}
        """;

    assertThatThrownBy(() -> Manifests.parse(yaml, "test"))
        .hasMessageContaining("unknown kind baton.dev/v1alpha1/LeaderGroupp");
  }

  @Test
  void refusesAnUnknownApiVersion() {
    String yaml =
        """
        apiVersion: apps/v2
        kind: Deployment
        metadata: {name: typo}
        """;

    assertThatThrownBy(() -> Manifests.parse(yaml, "test")).hasMessageContaining("unknown kind");
  }

  @Test
  void refusesAnUnknownFieldInAKubernetesObject() {
    String yaml =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: typo}
        spec:
          replica: 3
          template:
            spec:
              containers:
              - name: app
                image: busybox
                readinessProbe: {httpGet: {path: /, prot: 8080}}
        """;

    assertThatThrownBy(() -> Manifests.parse(yaml, "test"))
        .hasMessageContaining("spec.replica")
        .hasMessageContaining("spec.template.spec.containers[0].readinessProbe.httpGet.prot");
  }

  @Test
  void refusesAnUnknownFieldInALeaderGroup() {
    String yaml =
        """
        apiVersion: baton.dev/v1alpha1
        kind: LeaderGroup
        metadata: {name: typo}
        spec:
          selector: {matchLabels: {app: x}}
          roleLable: example.com/role
        """;

    assertThatThrownBy(() -> Manifests.parse(yaml, "test")).hasMessageContaining("roleLable");
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

  /**
   * A LeaderGroup works when its spec is valid, it selects the pods of exactly one workload of its
   * file, those pods do not set the role label themselves, and the Services that select on the role
   * label use its two values and otherwise select the same pods.
   */
  private static void assertWorks(String file, LeaderGroup group, List<HasMetadata> objects) {
    String what = file + ": LeaderGroup " + group.getMetadata().getName();
    LeaderGroupSpec spec = group.getSpec();
    assertThat(spec).as(what + " spec").isNotNull();
    assertThat(spec.getSelector()).as(what + " selector").isNotNull();
    assertThat(spec.getSelector().getMatchLabels())
        .as(what + " selector: match labels (an empty selector would pick every pod)")
        .isNotEmpty();

    String roleLabel = spec.getRoleLabel();
    assertThat(LabelKeys.isValid(roleLabel))
        .as(what + " roleLabel '%s' is a label key", roleLabel)
        .isTrue();

    Duration ttl = GoDuration.parse(spec.getLease().getTtl());
    Duration renew = GoDuration.parse(spec.getLease().getRenewInterval());
    assertThat(renew).as(what + " renewInterval < ttl").isLessThan(ttl);

    Map<String, PodTemplateSpec> workloads = workloads(objects);
    List<String> selected =
        workloads.entrySet().stream()
            .filter(
                w -> Manifests.selects(spec.getSelector(), w.getValue().getMetadata().getLabels()))
            .map(Map.Entry::getKey)
            .collect(Collectors.toList());
    assertThat(selected)
        .as(
            what
                + " selects the pod template labels of exactly one workload of "
                + workloads.keySet())
        .hasSize(1);
    PodTemplateSpec template = workloads.get(selected.get(0));
    Map<String, String> podLabels = template.getMetadata().getLabels();
    assertThat(podLabels)
        .as(what + ": the pod template must not set %s, Baton owns it", roleLabel)
        .doesNotContainKey(roleLabel);
    assertThat(template.getSpec().getContainers())
        .as(what + ": candidates are the ready pods, so the pods need a readiness probe")
        .allSatisfy((Container c) -> assertThat(c.getReadinessProbe()).isNotNull());

    List<Service> roleServices = new ArrayList<>();
    for (Service service : Manifests.ofKind(objects, Service.class)) {
      Map<String, String> selector = new HashMap<>(service.getSpec().getSelector());
      String role = selector.remove(roleLabel);
      if (role == null) {
        continue;
      }
      roleServices.add(service);
      String where = file + ": Service " + service.getMetadata().getName();
      assertThat(role).as(where + " selects %s", roleLabel).isIn(LEADER, FOLLOWER);
      assertThat(Manifests.selects(selector, podLabels))
          .as(where + " selects %s and the pods of the LeaderGroup's workload", selector)
          .isTrue();
    }
    boolean serves =
        template.getSpec().getContainers().stream()
            .anyMatch(c -> c.getPorts() != null && !c.getPorts().isEmpty());
    // A worker that serves nothing (no port, no role Service) learns its role through the
    // leadership API instead; anything that serves must have its leader routed.
    if (spec.getService() != null) {
      // One-write routing: the group's own Service; each named targetPort must be a container
      // port of the pods, or the leader's endpoint would lack that port.
      Set<String> named =
          template.getSpec().getContainers().stream()
              .filter(c -> c.getPorts() != null)
              .flatMap(c -> c.getPorts().stream())
              .map(ContainerPort::getName)
              .filter(Objects::nonNull)
              .collect(Collectors.toSet());
      assertThat(spec.getService().getPorts())
          .as(what + ": spec.service.ports")
          .isNotEmpty()
          .allSatisfy(
              p -> {
                if (p.getTargetPort() != null && p.getTargetPort().getStrVal() != null) {
                  assertThat(named)
                      .as(what + ": targetPort %s is a container port", p.getTargetPort())
                      .contains(p.getTargetPort().getStrVal());
                }
              });
      assertThat(Manifests.ofKind(objects, Service.class))
          .as(what + ": Baton creates spec.service itself; the file must not")
          .noneSatisfy(
              s -> assertThat(s.getMetadata().getName()).isEqualTo(spec.getService().getName()));
    } else if (serves || !roleServices.isEmpty()) {
      assertThat(roleServices)
          .as(what + ": a Service routes to the leader")
          .anySatisfy(s -> assertThat(s.getSpec().getSelector()).containsEntry(roleLabel, LEADER));
    }
  }

  private static Map<String, PodTemplateSpec> workloads(List<HasMetadata> objects) {
    Map<String, PodTemplateSpec> templates = new HashMap<>();
    for (Deployment d : Manifests.ofKind(objects, Deployment.class)) {
      assertThat(
              Manifests.selects(
                  d.getSpec().getSelector(), d.getSpec().getTemplate().getMetadata().getLabels()))
          .as("Deployment %s selects its own pod template", d.getMetadata().getName())
          .isTrue();
      templates.put("Deployment " + d.getMetadata().getName(), d.getSpec().getTemplate());
    }
    for (StatefulSet s : Manifests.ofKind(objects, StatefulSet.class)) {
      assertThat(
              Manifests.selects(
                  s.getSpec().getSelector(), s.getSpec().getTemplate().getMetadata().getLabels()))
          .as("StatefulSet %s selects its own pod template", s.getMetadata().getName())
          .isTrue();
      templates.put("StatefulSet " + s.getMetadata().getName(), s.getSpec().getTemplate());
    }
    return templates;
  }
}
