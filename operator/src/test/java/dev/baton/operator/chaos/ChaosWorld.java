package dev.baton.operator.chaos;

import static dev.baton.testkit.Sandbox.NS;

import dev.baton.client.ElectionKeys;
import dev.baton.client.HolderRecord;
import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.LocalRedisCluster;
import dev.baton.testkit.Sandbox;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The world of a chaos run ({@link ChaosIT}): {@link #GROUPS} groups gN over {@link #PODS} pods
 * each, the pods labelled app=gN, and where each group stands: its pods labelled leader against the
 * holder Redis names, asked of the sandbox's Redis or, in a cluster run, of the slots' masters.
 */
final class ChaosWorld {

  static final String ROLE = "baton.dev/role";
  static final int GROUPS = 3;
  static final int PODS = 3;

  private ChaosWorld() {}

  /** Per group: the pods labelled leader against the holder Redis names. */
  static String convergence(Sandbox s, LocalRedisCluster cluster) {
    StringBuilder sb = new StringBuilder();
    Map<String, String> holders;
    try {
      holders = holders(s, cluster);
    } catch (RuntimeException e) {
      holders = null;
    }
    for (int g = 0; g < GROUPS; g++) {
      String group = "g" + g;
      List<String> leaders;
      try {
        leaders =
            s.pods().stream()
                .filter(p -> group.equals(p.getMetadata().getLabels().get("app")))
                .filter(p -> "leader".equals(p.getMetadata().getLabels().get(ROLE)))
                .map(p -> p.getMetadata().getName())
                .toList();
      } catch (RuntimeException e) {
        leaders = List.of("(cannot list: " + e.getMessage() + ")");
      }
      sb.append(
          String.format(
              "  %s: labelled leader %s, holder in Redis %s%n",
              group, leaders, holders == null ? "(Redis cannot answer)" : holders.get(group)));
    }
    return sb.toString();
  }

  /** Every group has exactly one labeled leader, and it is the Redis holder. */
  static boolean allConverged(Sandbox s, LocalRedisCluster cluster) {
    Map<String, String> holders = holders(s, cluster);
    if (holders == null) {
      return false;
    }
    for (int g = 0; g < GROUPS; g++) {
      String group = "g" + g;
      List<String> leaders =
          s.pods().stream()
              .filter(p -> group.equals(p.getMetadata().getLabels().get("app")))
              .filter(p -> "leader".equals(p.getMetadata().getLabels().get(ROLE)))
              .map(p -> p.getMetadata().getName())
              .toList();
      if (leaders.size() != 1 || !leaders.get(0).equals(holders.get(group))) {
        return false;
      }
    }
    return true;
  }

  /** Group name to the pod holding its lease in Redis; null while Redis is down. */
  static Map<String, String> holders(Sandbox s, LocalRedisCluster cluster) {
    if (cluster != null) {
      return clusterHolders(cluster);
    }
    if (!s.redis.running()) {
      return null;
    }
    Map<String, String> out = new HashMap<>();
    for (int g = 0; g < GROUPS; g++) {
      String reply = s.redis.command("GET", new ElectionKeys(NS + "/g" + g).holder());
      String value = reply.startsWith("$-1") ? null : reply.substring(reply.indexOf('\n') + 1);
      out.put("g" + g, HolderRecord.parse(value).map(HolderRecord::pod).orElse(null));
    }
    return out;
  }

  /** The holders as the slots' current masters say; null while one cannot answer. */
  private static Map<String, String> clusterHolders(LocalRedisCluster cluster) {
    Map<String, String> out = new HashMap<>();
    try {
      for (int g = 0; g < GROUPS; g++) {
        String key = new ElectionKeys(NS + "/g" + g).holder();
        LocalRedis master = cluster.masterOf(cluster.slot(key));
        if (!master.answering()) {
          return null;
        }
        String reply = master.command("GET", key);
        if (reply.startsWith("-")) {
          return null; // MOVED, ASK or TRYAGAIN: the slot is on the move
        }
        String value = reply.startsWith("$-1") ? null : reply.substring(reply.indexOf('\n') + 1);
        out.put("g" + g, HolderRecord.parse(value).map(HolderRecord::pod).orElse(null));
      }
    } catch (IllegalStateException e) {
      return null;
    }
    return out;
  }
}
