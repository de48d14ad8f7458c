package dev.baton.operator.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.testkit.ApiRequestLog;
import dev.baton.testkit.KubernetesUnderTest;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The test's view of a {@link Sandbox}: waits, conditions, events, and failure descriptions. */
public final class BatonCluster extends Sandbox {

  public static final String ROLE = "baton.dev/role";

  /** On the API the environment asks for: embedded, or a real cluster. */
  public BatonCluster() {
    super(BatonOperator::launch);
  }

  /** On an API started with, say, fault injection. */
  public BatonCluster(KubernetesUnderTest kube) {
    super(kube, BatonOperator::launch);
  }

  @Override
  public BatonOperator operator() {
    return (BatonOperator) super.operator();
  }

  public Optional<Condition> condition(String group, String type) {
    LeaderGroup g = get(group);
    if (g == null || g.getStatus() == null || g.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return g.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  public List<Event> events(String involvedName) {
    return client.v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> involvedName.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  public List<String> eventReasons(String involvedName) {
    return events(involvedName).stream().map(Event::getReason).toList();
  }

  /**
   * The group's status, empty (never null) while the group or its status does not exist yet: a
   * condition polled by Awaitility must fail as an assertion, which is retried, not as a
   * NullPointerException, which is not.
   */
  public LeaderGroupStatus status(String group) {
    LeaderGroup g = get(group);
    return g == null || g.getStatus() == null ? new LeaderGroupStatus() : g.getStatus();
  }

  /** The lock's status, empty (never null) while the lock or its status does not exist yet. */
  public RedisLockStatus lockStatus(String lock) {
    RedisLock l = lock(lock);
    return l == null || l.getStatus() == null ? new RedisLockStatus() : l.getStatus();
  }

  /** Waits until exactly one pod is labeled leader and the group's status names it. */
  public String awaitLeader(String group, String roleLabel) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () -> {
              List<String> leaders = leaders(roleLabel);
              LeaderGroup g = get(group);
              assertThat(leaders).as(describe(group, roleLabel)).hasSize(1);
              assertThat(g.getStatus()).as(describe(group, roleLabel)).isNotNull();
              assertThat(g.getStatus().getLeader())
                  .as(describe(group, roleLabel))
                  .isEqualTo(leaders.get(0));
            });
    return leaders(roleLabel).get(0);
  }

  /**
   * {@code n} ready pods of {@code app}, the operator started and a LeaderGroup named {@code app}
   * over them: its leader, once the label and the status agree.
   */
  public String startGroup(String app, int n) {
    createPods(app, n);
    startOperator();
    create(group(app, app));
    return awaitLeader(app, ROLE);
  }

  /** Pods {@code <app>-0} to {@code <app>-<n-1>}, labeled app={@code app}, running and ready. */
  public void createPods(String app, int n) {
    for (int i = 0; i < n; i++) {
      createPod(app + "-" + i, app);
    }
  }

  /** The group's term as its status shows it, 0 for none yet. */
  public long term(String group) {
    Long term = status(group).getTerm();
    return term == null ? 0 : term;
  }

  /** Waits until the group's condition of {@code type} has {@code status}. */
  public void awaitCondition(String group, String type, String status) {
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(condition(group, type))
                    .get()
                    .extracting(Condition::getStatus)
                    .isEqualTo(status));
  }

  /**
   * Waits until the operator running now has reconciled the group (its term is among that
   * operator's metrics): the positive check a test needs before asserting that nothing changed.
   */
  public void awaitReconciled(String group) {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                operator() != null
                    && operator().registry().find(BatonMetrics.TERM).tag("group", group).gauge()
                        != null);
  }

  /** The pods with their roles and terms, and the group's status, for failure messages. */
  public String describe(String group, String roleLabel) {
    StringBuilder sb = new StringBuilder("\npods:\n");
    for (Pod p : pods()) {
      var a = p.getMetadata().getAnnotations();
      sb.append("  ")
          .append(p.getMetadata().getName())
          .append(" role=")
          .append(
              p.getMetadata().getLabels() == null
                  ? null
                  : p.getMetadata().getLabels().get(roleLabel))
          .append(" term=")
          .append(a == null ? null : a.get("baton.dev/term"))
          .append(" ready=")
          .append(p.getStatus() == null ? null : p.getStatus().getConditions())
          .append('\n');
    }
    LeaderGroup g = get(group);
    sb.append("status:\n").append(g == null ? "(no group)" : Serialization.asYaml(g.getStatus()));
    return sb.toString();
  }

  // ---- Nodes ----

  /** A node whose Ready condition is True. */
  public void createNode(String name) {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewStatus()
                .withConditions(nodeReady("True"))
                .endStatus()
                .build())
        .create();
  }

  /**
   * Sets a node's Ready condition ("True", "False", "Unknown"), as its kubelet or lifecycle would.
   */
  public void setNodeReady(String node, String status) {
    client
        .nodes()
        .withName(node)
        .editStatus(
            n -> {
              n.getStatus().setConditions(List.of(nodeReady(status)));
              return n;
            });
  }

  private static NodeCondition nodeReady(String status) {
    return new NodeConditionBuilder().withType("Ready").withStatus(status).build();
  }

  // ---- RedisLocks ----

  /** A RedisLock with the given ttl, in the default Redis, without a holder selector. */
  public static RedisLock redisLock(String name, String ttl) {
    RedisLock l = new RedisLock();
    l.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NS).build());
    RedisLockSpec spec = new RedisLockSpec();
    spec.setTtl(ttl);
    l.setSpec(spec);
    return l;
  }

  /** The same, granted by the operator to one ready pod labeled app=&lt;app&gt;. */
  public static RedisLock grantedLock(String name, String ttl, String app) {
    RedisLock l = redisLock(name, ttl);
    l.getSpec()
        .setHolderSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", app)).build());
    return l;
  }

  public RedisLock create(RedisLock l) {
    return client.resource(l).create();
  }

  public RedisLock lock(String name) {
    return client.resources(RedisLock.class).inNamespace(NS).withName(name).get();
  }

  public Optional<Condition> lockCondition(String lock, String type) {
    RedisLock l = lock(lock);
    if (l == null || l.getStatus() == null || l.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return l.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  public void annotateLock(String lock, String key, String value) {
    client
        .resources(RedisLock.class)
        .inNamespace(NS)
        .withName(lock)
        .edit(
            l -> {
              if (l.getMetadata().getAnnotations() == null) {
                l.getMetadata().setAnnotations(new java.util.HashMap<>());
              }
              l.getMetadata().getAnnotations().put(key, value);
              return l;
            });
  }

  /** A Secret with a Redis URL, as spec.redis and spec.redlock instances reference. */
  public void createRedisSecret(String name, String url) {
    createRedisSecret(name, Map.of("url", url));
  }

  /** A Secret with a Redis URL and the Redis user to log in as. */
  public void createRedisSecret(String name, String url, String username, String password) {
    Map<String, String> data = new LinkedHashMap<>();
    data.put("url", url);
    data.put("username", username);
    data.put("password", password);
    createRedisSecret(name, data);
  }

  /** A Secret with this string data: url, username, password, a CA, or any key a test needs. */
  public void createRedisSecret(String name, Map<String, String> data) {
    client.secrets().resource(redisSecret(name, data)).create();
  }

  /**
   * The Secret {@link #createRedisSecret(String, Map)} creates, in {@link #NS}, for a test that
   * creates it through its own client.
   */
  public static Secret redisSecret(String name, Map<String, String> data) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NS)
        .endMetadata()
        .addToStringData(data)
        .build();
  }

  /**
   * A second operator replica on the same API and Redis, with leader election off, as a
   * misconfigured install would run it: it finds the first one registered and stands by (and takes
   * over if the first goes). The caller closes it.
   */
  public BatonOperator startAnotherOperator() {
    Map<String, String> env =
        Map.of(
            OperatorConfig.REDIS_URL, redis.url(),
            OperatorConfig.HTTP_PORT, "0",
            OperatorConfig.LEADER_ELECTION, "false",
            OperatorConfig.REDIS_TIMEOUT, "500ms",
            OperatorConfig.LEADER_ELECTION_IDENTITY, "another-" + System.nanoTime());
    ApiRequestLog.operatorStarting(env);
    try {
      return BatonOperator.launch(env, kube.newClient());
    } catch (Exception e) {
      throw new IllegalStateException("cannot start a second operator: " + e.getMessage(), e);
    }
  }

  /** The pods with their lock label and token annotation, and the lock's status. */
  public String describeLock(String lock) {
    String key = "locks.baton.dev/" + lock;
    StringBuilder sb = new StringBuilder("\npods:\n");
    for (Pod p : pods()) {
      var l = p.getMetadata().getLabels();
      var a = p.getMetadata().getAnnotations();
      sb.append("  ")
          .append(p.getMetadata().getName())
          .append(" label=")
          .append(l == null ? null : l.get(key))
          .append(" token=")
          .append(a == null ? null : a.get(key))
          .append(" ready=")
          .append(p.getStatus() == null ? null : p.getStatus().getConditions())
          .append('\n');
    }
    RedisLock l = lock(lock);
    sb.append("status:\n").append(l == null ? "(no lock)" : Serialization.asYaml(l.getStatus()));
    return sb.toString();
  }
}
