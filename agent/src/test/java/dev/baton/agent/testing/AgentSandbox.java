package dev.baton.agent.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.BatonAgent;
import dev.baton.agent.config.AgentConfig;
import dev.baton.agent.threads.AgentThreads;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import dev.baton.client.KubernetesApi;
import dev.baton.operator.BatonOperator;
import dev.baton.testkit.ByteRecorder;
import dev.baton.testkit.FreePorts;
import dev.baton.testkit.Kubeconfig;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The real operator on the mock API server with a real redis-server ({@link Sandbox}), candidate
 * pods, and one agent per pod (in this JVM, or in its own process with {@link #env}), each with a
 * gate in front of its pod's application, an echo server that records every byte's arrival ({@link
 * ByteRecorder}). Closing it holds every test to both records: never two gates open at one instant
 * by the agents' callbacks (in-process agents only), and no byte at an application that a later
 * gate's opening had already made late (every agent, whatever its process).
 */
public final class AgentSandbox implements AutoCloseable {

  public static final String ROLE = "baton.dev/role";
  public static final String GROUP = "workers";
  public static final String APP = "worker";

  public final Sandbox cluster = new Sandbox(BatonOperator::launch);
  public final GateRecorder recorder = new GateRecorder();
  public final ByteRecorder bytes = new ByteRecorder();
  private final Map<String, BatonAgent> agents = new LinkedHashMap<>();
  private final Map<String, ByteRecorder.App> apps = new HashMap<>();
  private final Map<String, Integer> gatePorts = new HashMap<>();

  public AgentSandbox pods(int n) {
    for (int i = 0; i < n; i++) {
      cluster.createPod("worker-" + i, APP);
    }
    return this;
  }

  public AgentSandbox startOperator() {
    cluster.startOperator();
    return this;
  }

  public AgentSandbox group() {
    cluster.create(Sandbox.group(GROUP, APP));
    return this;
  }

  /** A RedisLock named {@code name} in the pods' namespace, for applications to take (30 s ttl). */
  public void createLock(String name) {
    RedisLock l = new RedisLock();
    l.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(Sandbox.NS).build());
    RedisLockSpec spec = new RedisLockSpec();
    spec.setTtl("30s");
    l.setSpec(spec);
    cluster.client.resource(l).create();
    // The agent answers 404 at once for a key without a token reservation, which the operator
    // makes as it first reconciles the lock.
    String reservation = new dev.baton.client.LockKeys(Sandbox.NS + "/" + name).reservation();
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(20))
        .until(() -> cluster.redis.command("EXISTS", reservation).equals(":1"));
  }

  public URI api() {
    return URI.create(cluster.client.getMasterUrl().toString());
  }

  /** The environment an agent of {@code pod} gets: its gate, the sandbox's Redis (or none). */
  public Map<String, String> env(String pod, Duration confirmWithin, boolean redis) {
    ByteRecorder.App app = apps.computeIfAbsent(pod, bytes::app);
    int gate = gatePorts.computeIfAbsent(pod, p -> FreePorts.any());
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.POD_NAME, pod);
    env.put(AgentConfig.POD_NAMESPACE, Sandbox.NS);
    env.put(AgentConfig.LISTEN, "127.0.0.1:0");
    env.put(AgentConfig.GATE, gate + ":127.0.0.1:" + app.port());
    env.put(AgentConfig.CONFIRM_WITHIN, confirmWithin.toMillis() + "ms");
    if (redis) {
      env.put(AgentConfig.REDIS_URL, cluster.redis.url());
    }
    return env;
  }

  public BatonAgent startAgent(String pod, Duration confirmWithin, boolean redis) {
    BatonAgent agent =
        new BatonAgent(
            AgentConfig.fromEnvironment(env(pod, confirmWithin, redis)),
            KubernetesApi.withoutCredentials(api()),
            List.of(recorder.forPod(pod)),
            new AgentThreads());
    agents.put(pod, agent);
    await().atMost(Duration.ofSeconds(10)).until(agent.leadership()::ready);
    return agent;
  }

  public BatonAgent agent(String pod) {
    return agents.get(pod);
  }

  /** Stops an agent as SIGTERM would: gates closed, key let go. */
  public void stopAgent(String pod) {
    BatonAgent a = agents.remove(pod);
    if (a != null) {
      a.close();
    }
  }

  public int gatePort(String pod) {
    return gatePorts.get(pod);
  }

  /** A client connection through {@code pod}'s gate. */
  public Socket connectThroughGate(String pod) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), gatePort(pod));
    s.setSoTimeout(5000);
    return s;
  }

  public String awaitLeader() {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(10))
        .untilAsserted(() -> assertThat(cluster.leaders(ROLE)).hasSize(1));
    return cluster.leaders(ROLE).get(0);
  }

  /** Waits for the labeled leader's own agent to say it leads: its gate may open. */
  public String awaitLeadingAgent() {
    String leader = awaitLeader();
    await().atMost(Duration.ofSeconds(10)).until(() -> agent(leader).leadership().view().leader());
    return leader;
  }

  /** Waits for a leader other than {@code old}. */
  public String awaitLeaderOtherThan(String old) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(5))
        .untilAsserted(() -> assertThat(cluster.leaders(ROLE)).hasSize(1).doesNotContain(old));
    return cluster.leaders(ROLE).get(0);
  }

  public Pod pod(String name) {
    return cluster.pod(name);
  }

  /** A kubeconfig for an agent in its own process (KUBECONFIG), with a token it ignores. */
  public Path kubeconfig(Path dir) throws IOException {
    return Kubeconfig.write(dir.resolve("kubeconfig"), api().toString(), "shop");
  }

  /** Stops everything, then holds every test to it: never two gates open at one instant. */
  @Override
  public void close() {
    agents.values().forEach(BatonAgent::close);
    agents.clear();
    bytes.close();
    cluster.close();
    assertThat(recorder.overlaps()).as("gates of one group open at the same instant").isEmpty();
    assertThat(bytes.violations()).as("bytes that reached a demoted pod's application").isEmpty();
  }
}
