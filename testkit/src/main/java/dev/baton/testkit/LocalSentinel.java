package dev.baton.testkit;

import static dev.baton.testkit.Timeouts.WAIT;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Redis Sentinel deployment on loopback ports: a master, one replica and three sentinels (quorum
 * 2) watching them under the master name {@value #MASTER_NAME}. Data nodes and sentinels may each
 * require a password. The master can be killed to force a failover, and replication to the replica
 * can be cut first so that it lags behind.
 */
public final class LocalSentinel implements AutoCloseable {

  public static final String MASTER_NAME = "baton";

  private final String dataPassword;
  private final String sentinelPassword;
  private final Path dir = RedisProcess.tempDir("baton-sentinel");
  private LocalRedis master;
  private LocalRedis replica;
  private final List<RedisProcess> sentinels = new ArrayList<>();

  private LocalSentinel(String dataPassword, String sentinelPassword) {
    this.dataPassword = dataPassword;
    this.sentinelPassword = sentinelPassword;
    try {
      startAll();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private void startAll() {
    // No 5-second wait for more replicas before the first full sync.
    List<String> masterArgs = new ArrayList<>(List.of("--repl-diskless-sync-delay", "0"));
    masterArgs.addAll(List.of(auth(dataPassword)));
    master = LocalRedis.start(masterArgs.toArray(String[]::new));
    List<String> replicaArgs =
        new ArrayList<>(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())));
    replicaArgs.addAll(List.of(auth(dataPassword)));
    replica = LocalRedis.start(replicaArgs.toArray(String[]::new));
    await("replica in sync")
        .atMost(WAIT)
        .until(() -> info(replica.port(), "replication").contains("master_link_status:up"));
    // Each sentinel is told about the others and the replica up front, so that the quorum
    // exists at once instead of after a few rounds of hello messages.
    List<Integer> ports = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ports.add(FreePorts.any());
      ids.add(String.format("%040x", new java.math.BigInteger(160, new java.util.Random())));
    }
    for (int i = 0; i < 3; i++) {
      List<String> known =
          new ArrayList<>(
              List.of(
                  "sentinel myid " + ids.get(i),
                  "sentinel known-replica " + MASTER_NAME + " 127.0.0.1 " + replica.port()));
      for (int j = 0; j < 3; j++) {
        if (j != i) {
          known.add(
              "sentinel known-sentinel "
                  + MASTER_NAME
                  + " 127.0.0.1 "
                  + ports.get(j)
                  + " "
                  + ids.get(j));
        }
      }
      sentinels.add(startSentinel(ports.get(i), known));
    }
    await("sentinels that can reach quorum and authorize a failover")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                sentinels.stream()
                        .allMatch(
                            s ->
                                sentinelCall(s.port(), "CKQUORUM", MASTER_NAME)
                                    .startsWith("OK 3 usable"))
                    && sentinelSeesReplica());
  }

  /** Starts the whole deployment; either password may be null. */
  public static LocalSentinel start(String dataPassword, String sentinelPassword) {
    return new LocalSentinel(dataPassword, sentinelPassword);
  }

  /** {@code redis-sentinel://127.0.0.1:a,127.0.0.1:b,127.0.0.1:c/baton}, as Baton takes it. */
  public String url() {
    return "redis-sentinel://"
        + sentinels.stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(","))
        + "/"
        + MASTER_NAME;
  }

  public LocalRedis master() {
    return master;
  }

  public LocalRedis replica() {
    return replica;
  }

  /** The port of the node the sentinels currently name as master. */
  public int masterPort() {
    Object r =
        withSentinel(
            sentinels.get(0).port(),
            c -> c.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME));
    return Integer.parseInt((String) ((List<?>) r).get(1));
  }

  /**
   * Cuts replication so that whatever the master is told from now on never reaches the replica: the
   * replica is given a wrong master password and its link is dropped, so it cannot sync again.
   * Sentinels still see a healthy replica they may promote (its link has been down for less than
   * ten times down-after-milliseconds).
   */
  public void cutReplication() {
    data(replica.port(), "CONFIG", "SET", "masterauth", "not-the-master-password");
    data(master.port(), "CLIENT", "KILL", "TYPE", "replica");
    await("replica link down")
        .atMost(WAIT)
        .until(() -> info(replica.port(), "replication").contains("master_link_status:down"));
  }

  /** Kills the master (SIGKILL) and waits until the sentinels have promoted the replica. */
  public void killMasterAndAwaitFailover() {
    master.kill();
    await("failover to the replica")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                masterPort() == replica.port()
                    && info(replica.port(), "replication").contains("role:master"));
  }

  /** Runs a command on a data node (master or replica) as the default user. */
  public Object data(int port, String... command) {
    try (RespClient c = RespClient.connect(port, null, null, dataPassword)) {
      return c.call(command);
    }
  }

  /** A key's value on a data node, or null. */
  public String get(int port, String key) {
    Object r = data(port, "GET", key);
    return r == null ? null : r.toString();
  }

  private String info(int port, String section) {
    return String.valueOf(data(port, "INFO", section));
  }

  private boolean sentinelSeesReplica() {
    Object r =
        withSentinel(sentinels.get(0).port(), c -> c.call("SENTINEL", "REPLICAS", MASTER_NAME));
    return r instanceof List<?> l
        && !l.isEmpty()
        && l.get(0).toString().contains(Integer.toString(replica.port()));
  }

  private String sentinelCall(int port, String... command) {
    String[] full = new String[command.length + 1];
    full[0] = "SENTINEL";
    System.arraycopy(command, 0, full, 1, command.length);
    Object r = withSentinel(port, c -> c.call(full));
    return r instanceof RespClient.Error e ? e.message() : String.valueOf(r);
  }

  private <T> T withSentinel(int port, java.util.function.Function<RespClient, T> f) {
    try (RespClient c = RespClient.connect(port, null, null, sentinelPassword)) {
      return f.apply(c);
    }
  }

  private RedisProcess startSentinel(int port, List<String> known) {
    List<String> conf =
        new ArrayList<>(
            List.of(
                "port " + port,
                "bind 127.0.0.1",
                "daemonize no",
                "dir " + dir,
                "logfile " + dir.resolve("sentinel-" + port + ".log"),
                "sentinel resolve-hostnames no",
                "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " 2",
                "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                "sentinel failover-timeout " + MASTER_NAME + " 10000",
                "sentinel parallel-syncs " + MASTER_NAME + " 1"));
    if (dataPassword != null) {
      conf.add("sentinel auth-pass " + MASTER_NAME + " " + dataPassword);
    }
    if (sentinelPassword != null) {
      conf.add("requirepass " + sentinelPassword);
      conf.add("sentinel sentinel-pass " + sentinelPassword);
    }
    conf.addAll(known);
    Path file = dir.resolve("sentinel-" + port + ".conf");
    try {
      // A sentinel rewrites its configuration file as it learns: it must be its own, writable.
      Files.write(file, conf);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return RedisProcess.start(dir, port, null, List.of(file.toString(), "--sentinel"));
  }

  private static String[] auth(String password) {
    return password == null
        ? new String[0]
        : new String[] {"--requirepass", password, "--masterauth", password};
  }

  /** The sentinels' logs, for failure messages. */
  public String logs() {
    StringBuilder sb = new StringBuilder();
    for (RedisProcess s : sentinels) {
      try {
        sb.append(Files.readString(dir.resolve("sentinel-" + s.port() + ".log")));
      } catch (IOException e) {
        sb.append("(no log for ").append(s.port()).append(")\n");
      }
    }
    return sb.toString();
  }

  @Override
  public void close() {
    sentinels.forEach(RedisProcess::close);
    if (replica != null) {
      replica.close();
    }
    if (master != null) {
      master.close();
    }
  }
}
