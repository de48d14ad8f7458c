package dev.baton.operator.testing;

import static org.awaitility.Awaitility.await;

import dev.baton.operator.BatonOperator;
import dev.baton.operator.api.v1alpha1.LeaderGroup;
import dev.baton.operator.api.v1alpha1.LeaderGroupSpec;
import dev.baton.operator.api.v1alpha1.LeaseSpec;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.demo.EmbeddedKubernetes;
import dev.baton.operator.demo.LocalRedis;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One test's world: an embedded Kubernetes API (mock server, CRUD mode), a real redis-server and
 * the Baton operator running against both as it would in a cluster.
 */
public final class BatonCluster implements AutoCloseable {

  public static final String NS = "shop";
  public static final String ROLE = "baton.dev/role";

  public final EmbeddedKubernetes kube;
  public final KubernetesClient client;
  public final LocalRedis redis;
  private BatonOperator operator;
  private final Map<String, String> env = new HashMap<>();

  public BatonCluster() {
    kube = EmbeddedKubernetes.start();
    client = kube.client();
    redis = LocalRedis.start();
    env.put(OperatorConfig.REDIS_URL, redis.url());
    env.put(OperatorConfig.HTTP_PORT, "0");
    env.put(OperatorConfig.LEADER_ELECTION, "false");
    env.put(OperatorConfig.REDIS_TIMEOUT, "500ms");
  }

  public BatonCluster env(String key, String value) {
    env.put(key, value);
    return this;
  }

  public BatonCluster startOperator() {
    try {
      operator = new BatonOperator(OperatorConfig.from(env, false), kube.newClient()).start();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return this;
  }

  public void stopOperator() {
    if (operator != null) {
      operator.close();
      operator = null;
    }
  }

  public BatonOperator operator() {
    return operator;
  }

  public Pod createPod(String name, String app) {
    return client.pods().resource(Pods.ready(NS, name, Map.of("app", app))).create();
  }

  public static LeaderGroup group(String name, String app) {
    LeaderGroup g = new LeaderGroup();
    g.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NS).build());
    LeaderGroupSpec spec = new LeaderGroupSpec();
    spec.setSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", app)).build());
    spec.setLease(new LeaseSpec("3s", "500ms"));
    g.setSpec(spec);
    return g;
  }

  public LeaderGroup create(LeaderGroup g) {
    return client.resource(g).create();
  }

  public LeaderGroup get(String name) {
    return client.resources(LeaderGroup.class).inNamespace(NS).withName(name).get();
  }

  public List<Pod> pods() {
    return client.pods().inNamespace(NS).list().getItems();
  }

  /** Pod name to role label value, for every pod that has one. */
  public Map<String, String> roles(String roleLabel) {
    return pods().stream()
        .filter(p -> p.getMetadata().getLabels() != null
            && p.getMetadata().getLabels().containsKey(roleLabel))
        .collect(Collectors.toMap(p -> p.getMetadata().getName(),
            p -> p.getMetadata().getLabels().get(roleLabel), (a, b) -> a,
            java.util.TreeMap::new));
  }

  public List<String> leaders(String roleLabel) {
    return roles(roleLabel).entrySet().stream()
        .filter(e -> e.getValue().equals("leader"))
        .map(Map.Entry::getKey)
        .toList();
  }

  public Pod pod(String name) {
    return client.pods().inNamespace(NS).withName(name).get();
  }

  public Optional<Condition> condition(String group, String type) {
    LeaderGroup g = get(group);
    if (g == null || g.getStatus() == null || g.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return g.getStatus().getConditions().stream().filter(c -> type.equals(c.getType()))
        .findFirst();
  }

  public List<Event> events(String involvedName) {
    return client.v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> involvedName.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  public List<String> eventReasons(String involvedName) {
    return events(involvedName).stream().map(Event::getReason).toList();
  }

  /** Waits until exactly one pod is labeled leader and the group's status names it. */
  public String awaitLeader(String group, String roleLabel) {
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
        .untilAsserted(() -> {
          List<String> leaders = leaders(roleLabel);
          LeaderGroup g = get(group);
          org.assertj.core.api.Assertions.assertThat(leaders)
              .as(describe(group, roleLabel)).hasSize(1);
          org.assertj.core.api.Assertions.assertThat(g.getStatus())
              .as(describe(group, roleLabel)).isNotNull();
          org.assertj.core.api.Assertions.assertThat(g.getStatus().getLeader())
              .as(describe(group, roleLabel)).isEqualTo(leaders.get(0));
        });
    return leaders(roleLabel).get(0);
  }

  /** The pods with their roles and terms, and the group's status, for failure messages. */
  public String describe(String group, String roleLabel) {
    StringBuilder sb = new StringBuilder("\npods:\n");
    for (Pod p : pods()) {
      var a = p.getMetadata().getAnnotations();
      sb.append("  ").append(p.getMetadata().getName())
          .append(" role=").append(p.getMetadata().getLabels() == null ? null
              : p.getMetadata().getLabels().get(roleLabel))
          .append(" term=").append(a == null ? null : a.get("baton.dev/term"))
          .append(" ready=").append(p.getStatus() == null ? null
              : p.getStatus().getConditions())
          .append('\n');
    }
    LeaderGroup g = get(group);
    sb.append("status:\n").append(g == null ? "(no group)" : Serialization.asYaml(g.getStatus()));
    return sb.toString();
  }

  @Override
  public void close() {
    stopOperator();
    redis.close();
    kube.close();
  }
}
