package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.baton.api.v1alpha1.LabelKeys;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.GoDuration;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.redislock.LockSettings;
import dev.baton.operator.tenancy.KeyClaims;
import dev.baton.operator.tenancy.KeyScope;
import dev.baton.operator.tenancy.RoleLabelScope;
import dev.baton.testkit.EndpointsController;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What every example file must hold to work once applied, as assertions: its LeaderGroups and
 * RedisLocks select pods of a workload of the same file, and its Services' ports resolve on the
 * pods they select.
 */
final class ExampleChecks {

  static final String LEADER = "leader";
  static final String FOLLOWER = "follower";

  private ExampleChecks() {}

  /**
   * Every port of the Service resolves on the pods it selects as the EndpointSlice controller of
   * Kubernetes 1.29 to 1.32 resolves it (the test kit's, which only looks at the pod's containers,
   * not its init containers: a port declared only on a native sidecar is not found before 1.33). A
   * port that does not resolve leaves the slice without it, and kube-proxy refuses every connection
   * to the Service.
   */
  static void assertPortsResolve(String file, Service service, PodTemplateSpec template) {
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
  static void assertLockWorks(
      String file,
      RedisLock lock,
      List<HasMetadata> objects,
      Map<String, PodTemplateSpec> workloads) {
    RedisLock applied = Serialization.clone(lock);
    applied.getMetadata().setNamespace("shop");
    assertThatCode(() -> LockSettings.of(applied))
        .as(file + ": RedisLock %s is valid", lock.getMetadata().getName())
        .doesNotThrowAnyException();
    assertThat(new KeyScope(List.of()).refusal("spec.key", "shop", KeyClaims.keyOf(applied)))
        .as(file + ": RedisLock %s's key belongs to its namespace", lock.getMetadata().getName())
        .isNull();
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

  /**
   * A LeaderGroup works when its spec is valid, it selects the pods of exactly one workload of its
   * file, those pods do not set the role label themselves, and the Services that select on the role
   * label use its two values and otherwise select the same pods.
   */
  static void assertWorks(String file, LeaderGroup group, List<HasMetadata> objects) {
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
    // The operator as the chart installs it allows no role-label prefix and shares no key prefix.
    Pod member = new Pod();
    member.setMetadata(template.getMetadata());
    assertThat(new RoleLabelScope(List.of()).mayLabel(member, roleLabel))
        .as(what + ": roleLabel %s is under baton.dev/ or the pods allow it", roleLabel)
        .isTrue();
    LeaderGroup applied = Serialization.clone(group);
    applied.getMetadata().setNamespace("shop");
    assertThat(
            new KeyScope(List.of()).refusal("spec.electionKey", "shop", KeyClaims.keyOf(applied)))
        .as(what + ": its key belongs to the namespace it is applied in")
        .isNull();
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

  static Map<String, PodTemplateSpec> workloads(List<HasMetadata> objects) {
    Map<String, PodTemplateSpec> templates = new HashMap<>();
    for (Deployment d : Manifests.ofKind(objects, Deployment.class)) {
      var spec = d.getSpec();
      String name = "Deployment " + d.getMetadata().getName();
      put(templates, name, spec.getSelector(), spec.getTemplate());
    }
    for (StatefulSet s : Manifests.ofKind(objects, StatefulSet.class)) {
      var spec = s.getSpec();
      String name = "StatefulSet " + s.getMetadata().getName();
      put(templates, name, spec.getSelector(), spec.getTemplate());
    }
    return templates;
  }

  /** A workload's pod template, under the workload's kind and name, once it selects its pods. */
  private static void put(
      Map<String, PodTemplateSpec> templates,
      String workload,
      LabelSelector selector,
      PodTemplateSpec template) {
    assertThat(Manifests.selects(selector, template.getMetadata().getLabels()))
        .as("%s selects its own pod template", workload)
        .isTrue();
    templates.put(workload, template);
  }
}
