package dev.baton.operator.injection;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.kube.Metadata;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What the injected agents of a LeaderGroup need from Kubernetes, kept by the operator: a Role that
 * may get and watch pods and a RoleBinding of it to the pods' service accounts (the agent follows
 * its own pod), and in relay mode a NetworkPolicy that lets only the group's own pods reach the
 * leader-only port. Each is owned by the LeaderGroup (an ownerReference), so the garbage collector
 * deletes it with the group. What was written is remembered, so a reconcile that changes nothing
 * sends nothing; it is read again every {@link #VERIFY_EVERY}, in case someone changed it.
 */
public final class AgentPermissions {

  static final Duration VERIFY_EVERY = Duration.ofMinutes(10);

  private static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  private static final String OPERATOR = "baton-operator";

  /** What this replica last wrote for an object, and when. */
  private record Written(String desired, long atMillis) {}

  private final KubernetesClient client;
  private final Clock clock;
  private final Map<String, Written> written = new ConcurrentHashMap<>();

  public AgentPermissions(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  public static String roleName(String group) {
    return group + "-baton-agent";
  }

  public static String policyName(String group) {
    return group + "-baton-leader-only";
  }

  /** Writes what is missing or different; null when all is in place, else what failed. */
  public String keep(LeaderGroup group, AgentPods pods) {
    List<String> problems = new ArrayList<>();
    ensure(problems, role(group), client.rbac().roles(), Role::getRules);
    ensure(
        problems,
        binding(group, pods),
        client.rbac().roleBindings(),
        b -> List.of(b.getRoleRef(), b.getSubjects()));
    if (pods.relay()) {
      ensure(
          problems,
          policy(group, pods),
          client.network().v1().networkPolicies(),
          NetworkPolicy::getSpec);
    }
    return problems.isEmpty() ? null : String.join("; ", problems);
  }

  /** The group is gone: its objects go with it (garbage collector), and so does the memory. */
  public void forget(LeaderGroup group) {
    String prefix = group.getMetadata().getNamespace() + "/";
    written
        .keySet()
        .removeIf(
            k ->
                k.contains(prefix + roleName(group.getMetadata().getName()))
                    || k.contains(prefix + policyName(group.getMetadata().getName())));
  }

  private <T extends HasMetadata, L> void ensure(
      List<String> problems,
      T desired,
      MixedOperation<T, L, Resource<T>> api,
      Function<T, Object> content) {
    String ns = desired.getMetadata().getNamespace();
    String name = desired.getMetadata().getName();
    String key = desired.getKind() + " " + ns + "/" + name;
    // As JSON: the model fills absent lists in as empty ones, the builder leaves them null.
    String wanted = Serialization.asJson(content.apply(desired));
    Written before = written.get(key);
    long now = clock.millis();
    if (before != null
        && before.desired().equals(wanted)
        && now - before.atMillis() < VERIFY_EVERY.toMillis()) {
      return;
    }
    try {
      T existing = api.inNamespace(ns).withName(name).get();
      if (existing == null) {
        api.inNamespace(ns).resource(desired).create();
      } else if (!ownedBy(existing, desired)) {
        problems.add(
            key
                + " exists and is not this group's (no ownerReference to it); rename or delete it"
                + " so the operator can write its own");
        return;
      } else if (!wanted.equals(Serialization.asJson(content.apply(existing)))) {
        desired.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
        api.inNamespace(ns).resource(desired).update();
      }
      written.put(key, new Written(wanted, now));
    } catch (KubernetesClientException e) {
      written.remove(key);
      problems.add("cannot write " + key + ": " + e.getCode() + " " + e.getMessage());
    }
  }

  private static boolean ownedBy(HasMetadata existing, HasMetadata desired) {
    OwnerReference ours = desired.getMetadata().getOwnerReferences().get(0);
    return existing.getMetadata().getOwnerReferences() != null
        && existing.getMetadata().getOwnerReferences().stream()
            .anyMatch(o -> Objects.equals(o.getUid(), ours.getUid()));
  }

  private static ObjectMeta meta(LeaderGroup group, String name) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(group.getMetadata().getNamespace())
        .addToLabels(MANAGED_BY, OPERATOR)
        .addToLabels("baton.dev/leader-group", group.getMetadata().getName())
        .withOwnerReferences(Metadata.controllerReference(group))
        .build();
  }

  public static Role role(LeaderGroup group) {
    return new RoleBuilder()
        .withMetadata(meta(group, roleName(group.getMetadata().getName())))
        .addNewRule()
        .withApiGroups("")
        .withResources("pods")
        .withVerbs("get", "watch")
        .endRule()
        .build();
  }

  public static RoleBinding binding(LeaderGroup group, AgentPods pods) {
    String role = roleName(group.getMetadata().getName());
    List<Subject> subjects = new ArrayList<>();
    for (String account : pods.serviceAccounts()) {
      subjects.add(
          new SubjectBuilder()
              .withKind("ServiceAccount")
              .withName(account)
              .withNamespace(group.getMetadata().getNamespace())
              .build());
    }
    return new RoleBindingBuilder()
        .withMetadata(meta(group, role))
        .withNewRoleRef()
        .withApiGroup("rbac.authorization.k8s.io")
        .withKind("Role")
        .withName(role)
        .endRoleRef()
        .withSubjects(subjects)
        .build();
  }

  /**
   * The group's pods take connections on the leader-only ports from the group's pods only, and on
   * every other port from anywhere, as without the policy: the ranges around those ports, for TCP,
   * and UDP and SCTP whole.
   */
  public static NetworkPolicy policy(LeaderGroup group, AgentPods pods) {
    LabelSelector selector = group.getSpec().getSelector();
    List<NetworkPolicyPort> leaderOnly = new ArrayList<>();
    List<NetworkPolicyPort> others = new ArrayList<>();
    int from = 1;
    for (int port : pods.leaderOnlyPorts()) {
      leaderOnly.add(tcp(port, port));
      if (port > from) {
        others.add(tcp(from, port - 1));
      }
      from = port + 1;
    }
    if (from <= 65535) {
      others.add(tcp(from, 65535));
    }
    others.add(new NetworkPolicyPortBuilder().withProtocol("UDP").build());
    others.add(new NetworkPolicyPortBuilder().withProtocol("SCTP").build());
    return new NetworkPolicyBuilder()
        .withMetadata(meta(group, policyName(group.getMetadata().getName())))
        .withNewSpec()
        .withPodSelector(selector)
        .withPolicyTypes("Ingress")
        .addNewIngress()
        .addNewFrom()
        .withPodSelector(selector)
        .endFrom()
        .withPorts(leaderOnly)
        .endIngress()
        .addNewIngress()
        .withPorts(others)
        .endIngress()
        .endSpec()
        .build();
  }

  private static NetworkPolicyPort tcp(int first, int last) {
    NetworkPolicyPortBuilder p =
        new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(first));
    if (last > first) {
      p.withEndPort(last);
    }
    return p.build();
  }
}
