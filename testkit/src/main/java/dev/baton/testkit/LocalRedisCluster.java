package dev.baton.testkit;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A real Redis Cluster on loopback: redis-server processes started with {@code --cluster-enabled
 * yes} and joined by {@code redis-cli --cluster create}, three masters with a replica each by
 * default. Tests kill masters (their replicas are promoted), and move slots between masters while
 * clients work, as a resharding does.
 */
public final class LocalRedisCluster implements AutoCloseable {

  /** How long a node may be unreachable before the cluster fails it over. */
  public static final Duration NODE_TIMEOUT = Duration.ofMillis(1000);

  private final List<LocalRedis> nodes;

  private LocalRedisCluster(List<LocalRedis> nodes) {
    this.nodes = nodes;
  }

  /** Three masters and three replicas. */
  public static LocalRedisCluster start() {
    return start(3, 1);
  }

  public static LocalRedisCluster start(int masters, int replicasPerMaster) {
    List<LocalRedis> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
        nodes.add(
            LocalRedis.start(
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                Long.toString(NODE_TIMEOUT.toMillis()),
                // The bus port is port + 10000 unless given: that may be taken, or past 65535.
                "--cluster-port",
                Integer.toString(FreePorts.any()),
                // Keep serving the slots that are still covered when a master is down.
                "--cluster-require-full-coverage",
                "no",
                // A replica takes over however long its link was down (a test kills masters
                // right after others came back).
                "--cluster-replica-validity-factor",
                "0"));
      }
      List<String> cmd = new ArrayList<>(List.of(RedisCli.path(), "--cluster", "create"));
      for (LocalRedis n : nodes) {
        cmd.add("127.0.0.1:" + n.port());
      }
      cmd.addAll(
          List.of("--cluster-replicas", Integer.toString(replicasPerMaster), "--cluster-yes"));
      RedisCli.run(cmd, Duration.ofSeconds(60));
      LocalRedisCluster cluster = new LocalRedisCluster(nodes);
      cluster.awaitHealthy(Duration.ofSeconds(30));
      cluster.awaitReplicasInSync(Duration.ofSeconds(30));
      return cluster;
    } catch (RuntimeException | IOException e) {
      nodes.forEach(LocalRedis::close);
      throw new IllegalStateException("cannot start a Redis Cluster: " + e.getMessage(), e);
    }
  }

  /** The seed URL Baton takes: {@code redis-cluster://host:port,host:port,...}. */
  public String url() {
    return "redis-cluster://"
        + nodes.stream()
            .filter(LocalRedis::running)
            .map(n -> "127.0.0.1:" + n.port())
            .collect(Collectors.joining(","));
  }

  public List<LocalRedis> nodes() {
    return List.copyOf(nodes);
  }

  /** The running masters that serve slots now. */
  public List<LocalRedis> masters() {
    List<LocalRedis> out = new ArrayList<>();
    for (Node n : view()) {
      LocalRedis r = byPort(n.port());
      if (n.master() && !n.slots().isEmpty() && r.answering()) {
        out.add(r);
      }
    }
    return out;
  }

  /** The hash slot of a key, as the cluster computes it (CLUSTER KEYSLOT). */
  public int slot(String key) {
    return Integer.parseInt(any().command("CLUSTER", "KEYSLOT", key).substring(1).trim());
  }

  /** The node that serves a slot now, by the view of a live node. */
  public LocalRedis masterOf(int slot) {
    for (Node n : view()) {
      if (n.master() && n.serves(slot)) {
        return byPort(n.port());
      }
    }
    throw new IllegalStateException("no master serves slot " + slot);
  }

  /**
   * Kills the master of a slot (SIGKILL) and waits until its replica was promoted and serves the
   * slot.
   */
  public LocalRedis killMasterOf(int slot, Duration within) {
    LocalRedis master = masterOf(slot);
    master.kill();
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        LocalRedis now = masterOf(slot);
        if (now != master && now.answering() && clusterOk(now)) {
          return now;
        }
      } catch (IllegalStateException notYet) {
        // no master for the slot yet
      }
      sleep(50);
    }
    throw new IllegalStateException("no replica took over slot " + slot + " within " + within);
  }

  /**
   * Moves one slot to another master as {@code redis-cli --cluster reshard} does, one key at a
   * time: the target imports, the source migrates (clients meanwhile get ASK for the keys already
   * moved), then every node learns the new owner (MOVED). {@code pauseMidway} holds the slot
   * half-migrated.
   */
  public void moveSlot(int slot, LocalRedis to, Duration pauseMidway) {
    LocalRedis from = masterOf(slot);
    if (from == to) {
      return;
    }
    String fromId = id(from);
    String toId = id(to);
    expectOk(to.command("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", fromId));
    expectOk(from.command("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", toId));
    boolean paused = false;
    while (true) {
      List<String> keys = new ArrayList<>();
      try (RespClient c = RespClient.connect(from.port())) {
        Object r = c.call("CLUSTER", "GETKEYSINSLOT", Integer.toString(slot), "10");
        if (r instanceof List<?> list) {
          list.forEach(k -> keys.add(k.toString()));
        }
      }
      if (keys.isEmpty()) {
        break;
      }
      for (String key : keys) {
        String reply =
            from.command(
                "MIGRATE", "127.0.0.1", Integer.toString(to.port()), key, "0", "5000", "REPLACE");
        if (!reply.startsWith("+OK") && !reply.startsWith("+NOKEY")) {
          throw new IllegalStateException("MIGRATE " + key + ": " + reply);
        }
        if (!paused) {
          paused = true;
          sleep(pauseMidway.toMillis());
        }
      }
    }
    for (LocalRedis n : List.of(to, from)) {
      expectOk(n.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", toId));
    }
    for (LocalRedis n : nodes) {
      if (n.answering() && n != to && n != from) {
        n.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", toId);
      }
    }
  }

  /** The replica that follows {@code master} now, by the view of a live node. */
  public LocalRedis replicaOf(LocalRedis master) {
    String masterId = id(master);
    for (Node n : view()) {
      if (!n.master() && masterId.equals(n.masterId())) {
        return byPort(n.port());
      }
    }
    throw new IllegalStateException("no replica follows the node on port " + master.port());
  }

  /** A master other than the one that serves {@code slot}. */
  public LocalRedis anotherMaster(int slot) {
    LocalRedis current = masterOf(slot);
    for (Node n : view()) {
      LocalRedis r = byPort(n.port());
      if (n.master() && r != current && r.answering() && !n.slots().isEmpty()) {
        return r;
      }
    }
    throw new IllegalStateException("no other master");
  }

  /**
   * Waits until every live node says cluster_state:ok and sees all 16,384 slots served by masters
   * not flagged as failing.
   */
  public void awaitHealthy(Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      boolean ok = true;
      for (LocalRedis n : nodes) {
        if (n.answering() && !clusterOk(n)) {
          ok = false;
        }
      }
      if (ok) {
        return;
      }
      sleep(50);
    }
    throw new IllegalStateException(
        "the cluster is not healthy within " + within + ":\n" + unhealthyNodes());
  }

  /**
   * What each unhealthy node says of the cluster: its state and slot counts, and every node as it
   * sees them (flags, master, link, slots), so that a heal that never ends can be read afterwards.
   */
  private String unhealthyNodes() {
    StringBuilder out = new StringBuilder();
    for (LocalRedis n : nodes) {
      try {
        if (!n.answering() || clusterOk(n)) {
          continue;
        }
        out.append("node ").append(n.port()).append(':');
        bulk(n.command("CLUSTER", "INFO"))
            .lines()
            .filter(l -> l.startsWith("cluster_state") || l.startsWith("cluster_slots_"))
            .forEach(l -> out.append(' ').append(l.trim()));
        out.append('\n');
        bulk(n.command("CLUSTER", "NODES"))
            .lines()
            .forEach(l -> out.append("  ").append(l.trim()).append('\n'));
      } catch (IllegalStateException e) {
        out.append("node ").append(n.port()).append(": ").append(e.getMessage()).append('\n');
      }
    }
    return out.toString();
  }

  /**
   * Closes the slots a move left half-way (a node died or hung under it) as {@code redis-cli
   * --cluster fix} does: their keys go to one owner and the slot is stable again. Redis never does
   * this by itself; until then every script on such a slot whose keys are split gets TRYAGAIN.
   */
  public void fixOpenSlots(Duration within) {
    LocalRedis master = masters().get(0);
    List<String> cmd =
        List.of(RedisCli.path(), "--cluster", "fix", "127.0.0.1:" + master.port(), "--cluster-yes");
    try {
      RedisCli.run(cmd, within);
    } catch (IOException e) {
      throw new IllegalStateException("cannot fix the cluster's open slots: " + e.getMessage(), e);
    }
  }

  /** Waits until every live replica finished its sync with its master (a promotable copy). */
  public void awaitReplicasInSync(Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      boolean synced = true;
      for (LocalRedis n : nodes) {
        if (!n.answering()) {
          continue;
        }
        String info = bulk(n.command("INFO", "replication"));
        if (info.contains("role:slave") && !info.contains("master_link_status:up")) {
          synced = false;
        }
      }
      if (synced) {
        return;
      }
      sleep(50);
    }
    throw new IllegalStateException("the replicas did not sync within " + within);
  }

  /**
   * The node says ok and sees every slot served by a master it can reach. With {@code
   * cluster-require-full-coverage no} the state stays ok while a master that came back is still
   * flagged as failed, and {@code redis-cli --cluster fix} then refuses the unreachable master.
   */
  private static boolean clusterOk(LocalRedis n) {
    try {
      String info = n.command("CLUSTER", "INFO");
      return info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384");
    } catch (IllegalStateException e) {
      return false;
    }
  }

  /** One line of CLUSTER NODES: who serves which slots. */
  record Node(String id, int port, boolean master, String masterId, List<int[]> slots) {

    boolean serves(int slot) {
      return slots.stream().anyMatch(r -> r[0] <= slot && slot <= r[1]);
    }
  }

  /** CLUSTER NODES from a live node. */
  List<Node> view() {
    String text = bulk(any().command("CLUSTER", "NODES"));
    List<Node> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      String[] f = line.trim().split(" ");
      if (f.length < 8) {
        continue;
      }
      int port = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
      boolean master = f[2].contains("master") && !f[2].contains("fail");
      List<int[]> slots = new ArrayList<>();
      for (int i = 8; i < f.length; i++) {
        if (f[i].startsWith("[")) {
          continue; // a slot being migrated or imported
        }
        String[] range = f[i].split("-");
        int a = Integer.parseInt(range[0]);
        slots.add(new int[] {a, range.length > 1 ? Integer.parseInt(range[1]) : a});
      }
      out.add(new Node(f[0], port, master, f[3], slots));
    }
    return out;
  }

  private String id(LocalRedis node) {
    return bulk(node.command("CLUSTER", "MYID")).trim();
  }

  private LocalRedis any() {
    return nodes.stream()
        .filter(LocalRedis::answering)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no node answers"));
  }

  private LocalRedis byPort(int port) {
    return nodes.stream()
        .filter(n -> n.port() == port)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no node on port " + port));
  }

  /** The payload of a bulk string reply ($n\r\n...). */
  private static String bulk(String reply) {
    if (reply.startsWith("$")) {
      return reply.substring(reply.indexOf("\r\n") + 2);
    }
    return reply;
  }

  private static void expectOk(String reply) {
    if (!reply.startsWith("+OK")) {
      throw new IllegalStateException("CLUSTER SETSLOT: " + reply);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    nodes.forEach(LocalRedis::close);
  }
}
