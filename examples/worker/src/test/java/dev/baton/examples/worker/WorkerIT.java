package dev.baton.examples.worker;

import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.BatonOperator;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.RespClient;
import dev.baton.testkit.Sandbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The example worker as its Deployment runs it, against the operator, the mock API server and a
 * real redis-server: it says "granted term N" and "revoked" as its pod gains and loses leadership,
 * and its journal takes no write with a term below one it already took.
 */
class WorkerIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private Sandbox sandbox;
  private final Map<String, Worker> workers = new HashMap<>();
  private final Map<String, List<String>> said = new HashMap<>();

  @BeforeEach
  void start() {
    sandbox = new Sandbox(EmbeddedKubernetes.start(), BatonOperator::launch);
    sandbox.createPod("worker-0", "worker");
    sandbox.createPod("worker-1", "worker");
    sandbox.startOperator();
  }

  @AfterEach
  void stop() {
    workers.values().forEach(Worker::close);
    sandbox.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"pod", "redis"})
  void saysGrantedAndRevokedAsItsPodGainsAndLosesLeadership(String source) {
    for (String pod : List.of("worker-0", "worker-1")) {
      Map<String, String> env = new HashMap<>();
      env.put("POD_NAMESPACE", NS);
      env.put("POD_NAME", pod);
      env.put("POD_UID", sandbox.pod(pod).getMetadata().getUid());
      env.put("LEADER_GROUP", "worker");
      env.put("LEADERSHIP_SOURCE", source);
      env.put("BATON_API_URL", sandbox.client.getMasterUrl().toString());
      env.put("REDIS_URL", sandbox.redis.url());
      env.put("WORK_EVERY", "1");
      List<String> lines = new CopyOnWriteArrayList<>();
      said.put(pod, lines);
      workers.put(pod, new Worker(env, lines::add));
    }
    LeaderGroup group = Sandbox.group("worker", "worker");
    sandbox.create(group);

    String first = await().atMost(WAIT).until(this::leading, p -> p != null);
    assertThat(said.get(first)).contains("granted term 1");
    await().atMost(WAIT).until(() -> said.get(first).contains("working as term 1"));

    sandbox.setReady(first, false);
    String second = await().atMost(WAIT).until(this::leading, p -> p != null && !p.equals(first));
    assertThat(said.get(first)).anyMatch(l -> l.startsWith("revoked: "));
    String granted =
        said.get(second).stream()
            .filter(l -> l.startsWith("granted term "))
            .findFirst()
            .orElseThrow();
    long term = Long.parseLong(granted.substring("granted term ".length()));
    assertThat(term).isGreaterThan(1);
    await().atMost(WAIT).until(() -> said.get(second).contains("working as term " + term));

    // The old leader's late write, had it not noticed: the journal refuses it.
    workers.get(first).runOnce(1);
    assertThat(said.get(first)).contains("write refused: term 1 is behind term " + term);
    List<String> entries = new ArrayList<>();
    try (RespClient redis = RespClient.connect(sandbox.redis.port())) {
      for (Object e : (List<?>) redis.call("LRANGE", "journal:{shop/worker}:entries", "0", "-1")) {
        entries.add((String) e);
      }
    }
    assertThat(entries).isNotEmpty().allMatch(e -> e.startsWith("1 ") || e.startsWith(term + " "));
    assertThat(entries.get(entries.size() - 1)).startsWith(term + " ");
  }

  /** The one worker that believes it leads, or null. */
  private String leading() {
    List<String> leaders =
        workers.entrySet().stream()
            .filter(e -> e.getValue().leading())
            .map(Map.Entry::getKey)
            .toList();
    return leaders.size() == 1 ? leaders.get(0) : null;
  }
}
