package dev.baton.agent;

import dev.baton.agent.config.AgentConfig;
import dev.baton.agent.config.GateRoute;
import dev.baton.agent.gate.Gate;
import dev.baton.agent.gate.GateRehearsal;
import dev.baton.agent.gate.Relay;
import dev.baton.agent.gate.RelayHandshake;
import dev.baton.agent.http.AgentHttp;
import dev.baton.agent.kube.KubeAccess;
import dev.baton.agent.leadership.AgentLeadership;
import dev.baton.agent.leadership.Exclusive;
import dev.baton.agent.locks.LockService;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.redis.RedisConnection;
import dev.baton.agent.redis.ScriptSocket;
import dev.baton.agent.threads.AgentThreads;
import dev.baton.client.BatonLeadership;
import dev.baton.client.CaCertificates;
import dev.baton.client.GracefulStop;
import dev.baton.client.KubernetesApi;
import dev.baton.client.RedisLogin;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Baton agent's main: configuration, Redis, the gates, leadership, the HTTP API; wiring only.
 */
public final class BatonAgent implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(BatonAgent.class);

  private final AgentThreads threads;
  private final RedissonClient redisson;
  private final List<Gate> gates = new ArrayList<>();
  private final List<Relay> relays = new ArrayList<>();
  private final Duration relayDrain;
  private final AgentLeadership leadership;
  private final AgentHttp http;

  /** Starts an agent for {@code config}, reaching the API through {@code api}. */
  public BatonAgent(AgentConfig config, KubernetesApi api) {
    this(config, api, List.of(), new AgentThreads());
  }

  /**
   * The same, telling {@code observers} of every opening before the gates open and of every closing
   * once the gates are closed (tests and benchmarks record them).
   */
  public BatonAgent(
      AgentConfig config, KubernetesApi api, List<Exclusive> observers, AgentThreads threads) {
    this.threads = threads;
    AgentMetrics metrics = new AgentMetrics();
    relayDrain = config.relayDrain();
    RedisLogin login = login(config);
    // The client of the agent's locks and subscription; none without a Redis URL.
    redisson = config.redisUrl().map(url -> RedisConnection.open(url, login)).orElse(null);
    try {
      // Bound first: a gate port in use stops the agent before it follows anything.
      String bind = config.gateBind().orElse(null);
      List<Gate> publicGates = new ArrayList<>();
      Map<Integer, RelayHandshake> handshakes = bindGates(config, bind, metrics, publicGates);
      ScriptSocket scripts = redisson == null ? null : scriptSocket(config, login);
      leadership =
          new AgentLeadership(
              config.podNamespace(),
              config.podName(),
              config.confirmWithin(),
              redisson,
              scripts,
              threads);
      AgentLeadership led = leadership;
      handshakes.values().forEach(h -> h.groupFrom(() -> led.view().group()));
      startRelays(config, bind, metrics, publicGates, handshakes);
      observers.forEach(leadership::add);
      gates.forEach(leadership::add);
      measure(metrics);
      LockService locks =
          redisson == null
              ? null
              : new LockService(
                  redisson,
                  config.podNamespace(),
                  config.podName(),
                  () -> config.podUid().or(leadership::podUid));
      http =
          new AgentHttp(
              config.listen(), config.healthListen(), leadership, locks, metrics, threads);
      leadership.start(
          api,
          BatonLeadership.Options.defaults()
              .withConfirmWithin(config.confirmWithin())
              .withConfirmEvery(config.confirmEvery())
              .withRoleLabel(config.roleLabel()));
      if (!gates.isEmpty()) {
        // Off the start's path: a promotion later finds its gates' forwarding path run.
        threads.thread("baton-agent-rehearsal", () -> GateRehearsal.play(threads)).start();
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    logStarted(config);
  }

  /** The hold scripts' own connection, against a single server; null for Sentinel or Cluster. */
  private static ScriptSocket scriptSocket(AgentConfig config, RedisLogin login) {
    return ScriptSocket.forUrl(
            config.redisUrl().orElseThrow(),
            login,
            RedisConnection.CONNECT_WITHIN,
            RedisConnection.ANSWER_WITHIN)
        .orElse(null);
  }

  /** Who the agent is to its Redis; the CA, when given, is parsed here once for both clients. */
  private static RedisLogin login(AgentConfig config) {
    return new RedisLogin(
        config.redisUsername().orElse(null),
        config.redisPassword().orElse(null),
        config.redisSentinelUsername().orElse(null),
        config.redisSentinelPassword().orElse(null),
        config.redisCa().map(CaCertificates::trustManagers).orElse(null));
  }

  /**
   * Binds every gate, and in relay mode its leader-only gate beside it; {@code publicGates} gets
   * the public ones. The relays' handshakes, by leader-only port.
   */
  private Map<Integer, RelayHandshake> bindGates(
      AgentConfig config, String bind, AgentMetrics metrics, List<Gate> publicGates) {
    Map<Integer, RelayHandshake> handshakes = new HashMap<>();
    for (GateRoute route : config.gates()) {
      Gate gate = new Gate(route, Gate.Listening.on(bind, null), metrics, threads);
      publicGates.add(gate);
      gates.add(gate);
      Integer leaderOnly = config.relays().get(route.listenPort());
      if (leaderOnly != null) {
        RelayHandshake handshake =
            new RelayHandshake(
                config.podNamespace(), leaderOnly, config.relaySecret().orElse(null));
        handshakes.put(leaderOnly, handshake);
        gates.add(
            new Gate(
                new GateRoute(leaderOnly, route.targetHost(), route.targetPort()),
                Gate.Listening.on(bind, handshake),
                metrics,
                threads));
      }
    }
    return handshakes;
  }

  /** In relay mode: each public gate relays what it cannot take while shut. */
  private void startRelays(
      AgentConfig config,
      String bind,
      AgentMetrics metrics,
      List<Gate> publicGates,
      Map<Integer, RelayHandshake> handshakes) {
    for (Gate gate : publicGates) {
      Integer leaderOnly = config.relays().get(gate.route().listenPort());
      if (leaderOnly != null) {
        Relay relay =
            new Relay(
                new Relay.Route(
                    gate.route().listenPort(),
                    leaderOnly,
                    handshakes.get(leaderOnly),
                    bind,
                    config.relayHold(),
                    Relay.Tries.POD_NETWORK),
                leadership::view,
                metrics,
                threads);
        relays.add(relay);
        leadership.watch(v -> relay.holderChanged());
        gate.relayWhenShut(relay::take);
      }
    }
  }

  /** What {@code /metrics} reads from the leadership. */
  private void measure(AgentMetrics metrics) {
    metrics.leadership(leadership::view);
    metrics.podReady(leadership::podReady);
    metrics.podWatch(() -> podWatchState(leadership), leadership::podWatchFailures);
    if (redisson != null) {
      metrics.redis(leadership.redisHealth());
    }
  }

  private void logStarted(AgentConfig config) {
    if (!config.listensOnLoopback()) {
      log.warn(
          "the HTTP API listens on {}, not on loopback: anything that reaches this address can"
              + " take this pod's locks",
          config.listen());
    }
    // The ports as bound: a configured port 0 is the system's pick.
    log.info(
        "agent started: {}; Redis {}; HTTP API on port {}{}",
        config,
        config.redisUrl().map(RedisConnection::describe).orElse("none"),
        http.port(),
        http.probesPort() < 0 ? "" : ", probes and metrics on port " + http.probesPort());
  }

  /** The HTTP API's port (useful when it was configured as 0). */
  public int httpPort() {
    return http.port();
  }

  public AgentLeadership leadership() {
    return leadership;
  }

  public List<Gate> gates() {
    return List.copyOf(gates);
  }

  /**
   * Closes the gates (connections reset), lets go of the gate key, and stops. In relay mode the
   * gates' ports stay bound for {@code relayDrain} after they shut, relaying to the next leader:
   * kube-proxy sends this pod new connections until its next sync.
   */
  @Override
  public void close() {
    if (!relays.isEmpty() && leadership != null) {
      leadership.shut();
      log.info("relaying new connections to the leader for {} before stopping", relayDrain);
      try {
        Thread.sleep(relayDrain.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (leadership != null) {
      leadership.close();
    }
    gates.forEach(Gate::close);
    relays.forEach(Relay::close);
    if (http != null) {
      http.close();
    }
    if (redisson != null) {
      redisson.shutdown();
    }
    threads.close();
  }

  /** The agent's threads, for what the main starts beside it. */
  AgentThreads threads() {
    return threads;
  }

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("version")) {
      // Also the image build's proof that the agent's class archive maps (-Xshare:on).
      String v = BatonAgent.class.getPackage().getImplementationVersion();
      System.out.println("baton-agent " + (v == null ? "(not run from the built jar)" : v));
      return;
    }
    Lean.properties();
    Map<String, String> env = System.getenv();
    BatonAgent agent;
    try {
      AgentConfig config = AgentConfig.fromEnvironment(env);
      agent =
          new BatonAgent(config, KubeAccess.resolve(env, Path.of(System.getProperty("user.home"))));
    } catch (RuntimeException e) {
      System.err.println("baton-agent: " + e.getMessage());
      System.exit(2);
      return;
    }
    // SIGTERM: the gates close and the key is let go before the JVM ends, with status 0.
    GracefulStop.install("baton-agent-shutdown", agent::close);
    Lean.heap(agent.threads());
  }

  /**
   * The pod watch's state as the agent's leadership tells it: open, or, when it is not, opening
   * until a watch failed, broken after.
   */
  private static BatonLeadership.WatchState podWatchState(AgentLeadership leadership) {
    if (leadership.podWatchOpen()) {
      return BatonLeadership.WatchState.OPEN;
    }
    return leadership.podWatchFailures() == 0
        ? BatonLeadership.WatchState.OPENING
        : BatonLeadership.WatchState.BROKEN;
  }
}
