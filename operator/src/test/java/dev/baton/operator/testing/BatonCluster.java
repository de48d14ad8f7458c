package dev.baton.operator.testing;

import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.ElectionKeys;
import dev.baton.client.HolderRecord;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.testkit.ApiRequestLog;
import dev.baton.testkit.KubernetesUnderTest;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/** The test's view of a {@link Sandbox}: waits, conditions, events, and failure descriptions. */
public final class BatonCluster extends Sandbox {

  public static final String ROLE = "baton.dev/role";

  private static final HttpClient HTTP = HttpClient.newHttpClient();

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

  /** Waits until the group's status counts {@code n} candidates. */
  public void awaitCandidates(String group, int n) {
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(status(group).getCandidates()).isEqualTo(n));
  }

  /**
   * Asserts that {@code leader} stays the one pod labeled leader (under {@link #ROLE}) and the
   * group's term stays {@code term} for {@code during}: sticky through renewals and reconciles.
   */
  public void awaitLeaderKept(String group, String leader, long term, Duration during) {
    await()
        .during(during)
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(leaders(ROLE)).containsExactly(leader);
              assertThat(term(group)).isEqualTo(term);
            });
  }

  /** The one pod labeled leader, or null while there is none or more than one. */
  public String soleLeader(String roleLabel) {
    List<String> leaders = leaders(roleLabel);
    return leaders.size() == 1 ? leaders.get(0) : null;
  }

  /** Edits a pod as kubectl edit does: reads it, changes it, writes it back. */
  public Pod editPod(String name, UnaryOperator<Pod> edit) {
    return client.pods().inNamespace(NS).withName(name).edit(edit);
  }

  /** The group's term as its status shows it, 0 for none yet. */
  public long term(String group) {
    Long term = status(group).getTerm();
    return term == null ? 0 : term;
  }

  /** Waits until the group's condition of {@code type} has {@code status}. */
  public void awaitCondition(String group, String type, String status) {
    awaitCondition(group, type, c -> c.hasStatus(status));
  }

  /** Waits until the group has a condition of {@code type} that passes {@code check}. */
  public void awaitCondition(String group, String type, Consumer<ConditionAssert> check) {
    await().atMost(WAIT).untilAsserted(() -> check.accept(assertCondition(group, type)));
  }

  /** Waits until each of the groups has a condition of {@code type} that passes, all at once. */
  public void awaitCondition(List<String> groups, String type, Consumer<ConditionAssert> check) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              for (String group : groups) {
                check.accept(assertCondition(group, type));
              }
            });
  }

  /** The group's condition of {@code type}, to assert on; failing while there is none. */
  public ConditionAssert assertCondition(String group, String type) {
    return new ConditionAssert(condition(group, type), "LeaderGroup " + group + ", " + type);
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

  /**
   * The pod that the group's holder record in Redis names (null for none), keyed by the group, as
   * an {@link dev.baton.testkit.InvariantChecker} reads it; null while Redis is down.
   */
  public Map<String, String> holders(String group) {
    if (!redis.running()) {
      return null;
    }
    String reply = redis.command("GET", new ElectionKeys(NS + "/" + group).holder());
    String value = reply.startsWith("$-1") ? null : reply.substring(reply.indexOf('\n') + 1);
    Map<String, String> out = new HashMap<>();
    out.put(group, HolderRecord.parse(value).map(HolderRecord::pod).orElse(null));
    return out;
  }

  /**
   * Sets the group's status.reservedTerm as another operator replica would that reserved terms on
   * another Redis; tried again until the write goes through.
   */
  public void recordReservedTerm(String group, long term) {
    editStatusUntilWritten(LeaderGroup.class, group, g -> g.getStatus().setReservedTerm(term));
  }

  /** The same for a lock's status.reservedToken. */
  public void recordReservedToken(String lock, long token) {
    editStatusUntilWritten(RedisLock.class, lock, l -> l.getStatus().setReservedToken(token));
  }

  private <T extends HasMetadata> void editStatusUntilWritten(
      Class<T> type, String name, Consumer<T> change) {
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(
            () ->
                client
                        .resources(type)
                        .inNamespace(NS)
                        .withName(name)
                        .editStatus(
                            r -> {
                              change.accept(r);
                              return r;
                            })
                    != null);
  }

  /** The pods with their roles and terms, and the group's status, for failure messages. */
  public String describe(String group, String roleLabel) {
    String pods = describePods("role", roleLabel, "term", "baton.dev/term");
    LeaderGroup g = get(group);
    return pods + "status:\n" + (g == null ? "(no group)" : Serialization.asYaml(g.getStatus()));
  }

  /** Each pod with the value of a label and of an annotation, and its readiness, a line each. */
  private String describePods(
      String labelWord, String label, String annotationWord, String annotation) {
    StringBuilder sb = new StringBuilder("\npods:\n");
    for (Pod p : pods()) {
      var l = p.getMetadata().getLabels();
      var a = p.getMetadata().getAnnotations();
      sb.append("  ")
          .append(p.getMetadata().getName())
          .append(" " + labelWord + "=")
          .append(l == null ? null : l.get(label))
          .append(" " + annotationWord + "=")
          .append(a == null ? null : a.get(annotation))
          .append(" ready=")
          .append(p.getStatus() == null ? null : p.getStatus().getConditions())
          .append('\n');
    }
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

  /** Nodes node-a, node-b, ... and on each one a ready pod {@code <app>-<i>}, labeled app=app. */
  public void createPodsOnNodes(String app, int n) {
    for (int i = 0; i < n; i++) {
      createNode("node-" + (char) ('a' + i));
    }
    for (int i = 0; i < n; i++) {
      Pod p = readyPod(NS, app + "-" + i, Map.of("app", app));
      p.getSpec().setNodeName("node-" + (char) ('a' + i));
      client.pods().resource(p).create();
    }
  }

  /** The name, in {@link #NS}. */
  private static ObjectMeta metadata(String name) {
    return new ObjectMetaBuilder().withName(name).withNamespace(NS).build();
  }

  private static NodeCondition nodeReady(String status) {
    return new NodeConditionBuilder().withType("Ready").withStatus(status).build();
  }

  // ---- Services and the operator's HTTP port ----

  /** A Service {@code name} on port 80 over the pods with the labels {@code selector}. */
  public static Service leaderService(String name, Map<String, String> selector) {
    return new ServiceBuilder()
        .withMetadata(metadata(name))
        .withNewSpec()
        .withSelector(selector)
        .addNewPort()
        .withPort(80)
        .endPort()
        .endSpec()
        .build();
  }

  public void createLeaderService(String name, Map<String, String> selector) {
    client.services().resource(leaderService(name, selector)).create();
  }

  public Service service(String name) {
    return client.services().inNamespace(NS).withName(name).get();
  }

  public EndpointSlice endpointSlice(String name) {
    return client.discovery().v1().endpointSlices().inNamespace(NS).withName(name).get();
  }

  /** A GET on the operator's HTTP port: /metrics, /healthz, /readyz. */
  public HttpResponse<String> httpGet(String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + operator().httpPort() + path))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The operator's metrics as Prometheus scrapes them. */
  public String metrics() throws IOException, InterruptedException {
    return httpGet("/metrics").body();
  }

  // ---- RedisLocks ----

  /** A RedisLock with the given ttl, in the default Redis, without a holder selector. */
  public static RedisLock redisLock(String name, String ttl) {
    RedisLock l = new RedisLock();
    l.setMetadata(metadata(name));
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

  /** The lock's condition of {@code type}, to assert on; failing while there is none. */
  public ConditionAssert assertLockCondition(String lock, String type) {
    return new ConditionAssert(lockCondition(lock, type), "RedisLock " + lock + ", " + type);
  }

  public void annotateLock(String lock, String key, String value) {
    client
        .resources(RedisLock.class)
        .inNamespace(NS)
        .withName(lock)
        .edit(
            l -> {
              if (l.getMetadata().getAnnotations() == null) {
                l.getMetadata().setAnnotations(new HashMap<>());
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
    return new SecretBuilder().withMetadata(metadata(name)).addToStringData(data).build();
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
    String pods = describePods("label", key, "token", key);
    RedisLock l = lock(lock);
    return pods + "status:\n" + (l == null ? "(no lock)" : Serialization.asYaml(l.getStatus()));
  }
}
