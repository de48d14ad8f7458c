package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.BatonLeadership;
import dev.baton.client.BatonNames;
import dev.baton.client.LeadershipListener;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.PausableProxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;

/**
 * Applications that follow their leadership with baton-client's {@link BatonLeadership}, from their
 * pod (a watch on the mock API server) or from the election's record in a real redis-server: told
 * on election, failover and switchover, revoked when they cannot confirm, and never two of them
 * believing they lead at once ({@link Believers}).
 */
class LeadershipIT extends ClusterTest {

  private static final BatonLeadership.Options OPTIONS =
      BatonLeadership.Options.defaults()
          .withConfirmEvery(Duration.ofMillis(200))
          .withConfirmWithin(Duration.ofSeconds(1));

  /** Where the applications learn their leadership. */
  enum Source {
    POD,
    REDIS
  }

  private final Believers believers = new Believers();
  private final Map<String, BatonLeadership> apps = new LinkedHashMap<>();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeEach
  void start() {
    for (int i = 0; i < 3; i++) {
      cluster.createPod("worker-" + i, "worker");
    }
    cluster.startOperator();
  }

  @AfterEach
  void stop() throws Exception {
    apps.values().forEach(BatonLeadership::close);
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  @ParameterizedTest
  @EnumSource(Source.class)
  void toldOnElectionFailoverAndSwitchoverNeverTwoAtOnce(Source source) {
    String first = electFollowedByAll(source);
    long firstTerm = awaitGranted(first);
    assertThat(firstTerm).isEqualTo(podTerm(first));
    assertThat(believers.current()).containsExactly(first);

    // Failover: the leader stops being ready.
    cluster.setReady(first, false);
    String second = awaitNewLeader(first);
    long secondTerm = awaitGranted(second);
    assertThat(apps.get(first).isLeader()).isFalse();
    assertThat(believers.revocations(first)).isNotEmpty();
    assertThat(secondTerm).isGreaterThan(firstTerm).isEqualTo(podTerm(second));

    // Switchover to the remaining ready pod.
    cluster.setReady(first, true);
    String third =
        apps.keySet().stream()
            .filter(p -> !p.equals(first) && !p.equals(second))
            .findFirst()
            .orElseThrow();
    cluster.annotate("workers", BatonNames.SWITCHOVER_ANNOTATION, third);
    await().atMost(WAIT).until(() -> cluster.leaders(ROLE), l -> l.equals(List.of(third)));
    long thirdTerm = awaitGranted(third);
    assertThat(thirdTerm).isGreaterThan(secondTerm);
    assertThat(apps.get(second).isLeader()).isFalse();

    // A run of failovers: whoever leads stops being ready, then comes back.
    String leader = third;
    for (int i = 0; i < 6; i++) {
      cluster.setReady(leader, false);
      String next = awaitNewLeader(leader);
      awaitGranted(next);
      cluster.setReady(leader, true);
      leader = next;
    }
    assertThat(believers.violations()).isEmpty();
    assertThat(believers.grants()).hasSizeGreaterThanOrEqualTo(9);
  }

  @ParameterizedTest
  @EnumSource(Source.class)
  void aLeaderThatCannotConfirmIsRevokedBeforeAnotherIsGranted(Source source) {
    cluster.create(BatonCluster.group("workers", "worker"));
    String leader = cluster.awaitLeader("workers", ROLE);
    PausableProxy proxy = null;
    for (int i = 0; i < 3; i++) {
      String pod = "worker-" + i;
      if (pod.equals(leader)) {
        proxy = proxyFor(source);
        closing.add(proxy);
      }
      follow(source, pod, pod.equals(leader) ? proxy : null);
    }
    long term = awaitGranted(leader);

    // Its source stops answering (watch broken, or Redis unreachable from this pod only): the
    // operator still renews its lease, but it cannot know, so it stops by the deadline.
    proxy.pause();
    await().atMost(WAIT).until(() -> believers.revocations(leader), r -> !r.isEmpty());
    assertThat(believers.revocations(leader).get(0)).contains("could not be confirmed");
    assertThat(cluster.leaders(ROLE)).containsExactly(leader);
    proxy.resume();
    assertThat(awaitGranted(leader)).isEqualTo(term);

    // Cut off again, and now it really loses: the successor is granted only after it stopped.
    proxy.pause();
    cluster.setReady(leader, false);
    String next = awaitNewLeader(leader);
    awaitGranted(next);
    assertThat(apps.get(leader).isLeader()).isFalse();
    proxy.resume();
    await().during(Duration.ofMillis(600)).atMost(WAIT).until(() -> !apps.get(leader).isLeader());
    assertThat(believers.violations()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Source.class)
  void redisLoss(Source source) {
    String leader = electFollowedByAll(source);
    long term = awaitGranted(leader);

    cluster.redis.freeze();
    try {
      if (source == Source.REDIS) {
        // Its only source is gone: revoked within the lease's ttl (3 s) of its last read.
        await().atMost(WAIT).until(() -> believers.revocations(leader), r -> !r.isEmpty());
        assertThat(believers.current()).isEmpty();
      } else {
        // Fail static: the labels stay, and so does the leadership its pod shows.
        await().during(Duration.ofSeconds(4)).atMost(WAIT).until(() -> apps.get(leader).isLeader());
      }
    } finally {
      cluster.redis.thaw();
    }
    String after = cluster.awaitLeader("workers", ROLE);
    assertThat(awaitGranted(after)).isGreaterThanOrEqualTo(term);
    assertThat(believers.violations()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(
      value = Source.class,
      names = {"REDIS"})
  void stayLeaderWhenUnconfirmedKeepsLeadingThroughARedisOutage(Source source) {
    for (int i = 0; i < 3; i++) {
      String pod = "worker-" + i;
      apps.put(
          pod,
          BatonLeadership.readingRedis(
              redisson(cluster.redis.port()),
              NS + "/workers",
              uid(pod),
              OPTIONS.withStayLeaderWhenUnconfirmed(true)));
      apps.get(pod).addListener(believers.listenerFor(pod));
    }
    cluster.create(BatonCluster.group("workers", "worker"));
    String leader = cluster.awaitLeader("workers", ROLE);
    awaitGranted(leader);
    cluster.redis.freeze();
    try {
      await().during(Duration.ofSeconds(5)).atMost(WAIT).until(() -> apps.get(leader).isLeader());
      assertThat(believers.revocations(leader)).isEmpty();
    } finally {
      cluster.redis.thaw();
    }
  }

  /** Every worker's application following its leadership, then the group: its leader. */
  private String electFollowedByAll(Source source) {
    for (int i = 0; i < 3; i++) {
      follow(source, "worker-" + i, null);
    }
    cluster.create(BatonCluster.group("workers", "worker"));
    return cluster.awaitLeader("workers", ROLE);
  }

  private void follow(Source source, String pod, PausableProxy through) {
    BatonLeadership leadership =
        switch (source) {
          case POD -> {
            URI api = URI.create(cluster.client.getMasterUrl().toString());
            if (through != null) {
              api = URI.create("http://127.0.0.1:" + through.port());
            }
            yield BatonLeadership.watchingPod(api, NS, pod, OPTIONS);
          }
          case REDIS ->
              BatonLeadership.readingRedis(
                  redisson(through == null ? cluster.redis.port() : through.port()),
                  NS + "/workers",
                  uid(pod),
                  OPTIONS);
        };
    leadership.addListener(believers.listenerFor(pod));
    apps.put(pod, leadership);
  }

  private PausableProxy proxyFor(Source source) {
    if (source == Source.REDIS) {
      return PausableProxy.to("127.0.0.1", cluster.redis.port());
    }
    URI api = URI.create(cluster.client.getMasterUrl().toString());
    return PausableProxy.to(api.getHost(), api.getPort());
  }

  private RedissonClient redisson(int port) {
    Config config = new Config();
    config.setThreads(2);
    config.setNettyThreads(4);
    config
        .useSingleServer()
        .setAddress("redis://127.0.0.1:" + port)
        .setConnectionMinimumIdleSize(1)
        .setConnectionPoolSize(4)
        .setSubscriptionConnectionMinimumIdleSize(1)
        .setConnectTimeout(500)
        .setTimeout(500)
        .setRetryAttempts(1)
        .setRetryDelay(new ConstantDelay(Duration.ofMillis(50)))
        .setPingConnectionInterval(500);
    RedissonClient client = Redisson.create(config);
    closing.add(client::shutdown);
    return client;
  }

  private String uid(String pod) {
    return cluster.pod(pod).getMetadata().getUid();
  }

  private long podTerm(String pod) {
    return Long.parseLong(cluster.pod(pod).getMetadata().getAnnotations().get("baton.dev/term"));
  }

  private String awaitNewLeader(String old) {
    return await()
        .atMost(WAIT)
        .until(
            () -> {
              List<String> leaders = cluster.leaders(ROLE);
              return leaders.size() == 1 && !leaders.get(0).equals(old) ? leaders.get(0) : null;
            },
            p -> p != null);
  }

  /** Waits until {@code pod}'s application believes it leads, and returns its term. */
  private long awaitGranted(String pod) {
    await().atMost(WAIT).until(() -> apps.get(pod).isLeader() && believers.current().contains(pod));
    return apps.get(pod).term();
  }

  /**
   * Every application's belief, as its listener hears it: a grant while another application
   * believes it leads, or with a term not above every earlier grant's (but for the same pod granted
   * its own term back), is a violation.
   */
  static final class Believers {

    private final Map<String, Long> believing = new LinkedHashMap<>();
    private final Map<String, List<String>> revocations = new LinkedHashMap<>();
    private final List<String> grants = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private long highestTerm;
    private String highestHolder;

    LeadershipListener listenerFor(String pod) {
      return new LeadershipListener() {
        @Override
        public void granted(long term) {
          Believers.this.granted(pod, term);
        }

        @Override
        public void revoked(String reason) {
          Believers.this.revoked(pod, reason);
        }
      };
    }

    synchronized void granted(String pod, long term) {
      grants.add(pod + "@" + term);
      if (!believing.isEmpty()) {
        violations.add(
            pod + " granted term " + term + " while " + believing + " believe they lead");
      }
      if (term < highestTerm || term == highestTerm && !pod.equals(highestHolder)) {
        violations.add(
            pod + " granted term " + term + " after " + highestHolder + " had " + highestTerm);
      }
      highestTerm = Math.max(highestTerm, term);
      highestHolder = pod;
      believing.put(pod, term);
    }

    synchronized void revoked(String pod, String reason) {
      believing.remove(pod);
      revocations.computeIfAbsent(pod, p -> new ArrayList<>()).add(reason);
    }

    synchronized List<String> current() {
      return List.copyOf(believing.keySet());
    }

    synchronized List<String> revocations(String pod) {
      return List.copyOf(revocations.getOrDefault(pod, List.of()));
    }

    synchronized List<String> grants() {
      return List.copyOf(grants);
    }

    synchronized List<String> violations() {
      return List.copyOf(violations);
    }
  }
}
