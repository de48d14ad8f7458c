package dev.baton.bench.scale;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Follows every benchmark pod and LeaderGroup through informers and keeps, per group, the pod
 * labeled leader and when that label appeared. A group has converged when exactly one of its pods
 * is labeled leader, all others follower, and its status names that leader. Times are stamped on
 * the informer threads as events arrive.
 */
final class ConvergenceWatcher implements AutoCloseable {

  static final String POD_LABEL = "bench.baton.dev/scale";

  private final String roleLabel;
  private final int podsPerGroup;
  private final Map<String, Group> groups = new HashMap<>();
  private final Map<String, String> podGroup = new HashMap<>();
  private final Map<String, String> podTerm = new HashMap<>();
  private long termChanges;
  private final SharedIndexInformer<Pod> podInformer;
  private final SharedIndexInformer<LeaderGroup> groupInformer;
  private int converged;
  private long firstLeaderNanos = -1;
  private long allConvergedNanos = -1;
  private final int expectedGroups;

  private static final class Group {
    final Map<String, String> roles = new HashMap<>();
    String leader;
    long leaderSinceNanos;
    String statusLeader;
    boolean converged;
    long convergedNanos = -1;
  }

  ConvergenceWatcher(
      KubernetesClient client, String roleLabel, int podsPerGroup, int expectedGroups) {
    this.roleLabel = roleLabel;
    this.podsPerGroup = podsPerGroup;
    this.expectedGroups = expectedGroups;
    this.podInformer =
        client
            .pods()
            .inAnyNamespace()
            .withLabel(POD_LABEL)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    pod(pod, false);
                  }

                  @Override
                  public void onUpdate(Pod old, Pod pod) {
                    pod(pod, false);
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknownFinalState) {
                    pod(pod, true);
                  }
                });
    this.groupInformer =
        client
            .resources(LeaderGroup.class)
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(LeaderGroup g) {
                    group(g);
                  }

                  @Override
                  public void onUpdate(LeaderGroup old, LeaderGroup g) {
                    group(g);
                  }

                  @Override
                  public void onDelete(LeaderGroup g, boolean unknownFinalState) {}
                });
  }

  private synchronized void pod(Pod pod, boolean deleted) {
    long now = System.nanoTime();
    String ns = pod.getMetadata().getNamespace();
    String name = ns + "/" + pod.getMetadata().getName();
    String app = pod.getMetadata().getLabels().get("app");
    String key = ns + "/" + app;
    podGroup.put(name, key);
    Group g = groups.computeIfAbsent(key, k -> new Group());
    if (deleted) {
      g.roles.remove(name);
      podTerm.remove(name);
    } else {
      g.roles.put(name, pod.getMetadata().getLabels().get(roleLabel));
      var annotations = pod.getMetadata().getAnnotations();
      String term = annotations == null ? null : annotations.get(BatonNames.TERM_ANNOTATION);
      String before = podTerm.put(name, term);
      if (term != null && !term.equals(before)) {
        termChanges++;
      }
    }
    String leader = null;
    for (Map.Entry<String, String> e : g.roles.entrySet()) {
      if ("leader".equals(e.getValue())) {
        leader = e.getKey();
      }
    }
    if (leader != null && !leader.equals(g.leader)) {
      g.leaderSinceNanos = now;
      if (firstLeaderNanos < 0) {
        firstLeaderNanos = now;
      }
    }
    g.leader = leader;
    update(g, now);
  }

  private synchronized void group(LeaderGroup lg) {
    String key = lg.getMetadata().getNamespace() + "/" + lg.getMetadata().getName();
    Group g = groups.computeIfAbsent(key, k -> new Group());
    String leader = lg.getStatus() == null ? null : lg.getStatus().getLeader();
    g.statusLeader =
        leader == null || leader.isEmpty() ? null : lg.getMetadata().getNamespace() + "/" + leader;
    update(g, System.nanoTime());
  }

  private void update(Group g, long now) {
    long leaders = g.roles.values().stream().filter("leader"::equals).count();
    long followers = g.roles.values().stream().filter("follower"::equals).count();
    boolean ok =
        g.roles.size() == podsPerGroup
            && leaders == 1
            && followers == podsPerGroup - 1
            && Objects.equals(g.leader, g.statusLeader);
    if (ok != g.converged) {
      g.converged = ok;
      converged += ok ? 1 : -1;
      if (ok) {
        g.convergedNanos = now;
      }
      if (ok && converged == expectedGroups && allConvergedNanos < 0) {
        allConvergedNanos = now;
      }
    }
  }

  /** Whether the informers have listed the expected pods and groups. */
  synchronized boolean sees(int pods, int groupCount) {
    return podInformer.hasSynced()
        && groupInformer.hasSynced()
        && podGroup.size() >= pods
        && groups.size() >= groupCount;
  }

  /** How many times a pod was seen with a new term: elections and re-acquired leases. */
  synchronized long termChanges() {
    return termChanges;
  }

  synchronized boolean allConverged() {
    return converged == expectedGroups;
  }

  /**
   * When the last of these groups (namespace/name) converged, or -1 while one of them has not: the
   * time each last became converged.
   */
  synchronized long convergedNanos(Collection<String> keys) {
    long last = -1;
    for (String key : keys) {
      Group g = groups.get(key);
      if (g == null || !g.converged) {
        return -1;
      }
      last = Math.max(last, g.convergedNanos);
    }
    return last;
  }

  /**
   * When the first {@code share} (0 to 1) of the expected groups had converged, or -1 before: the
   * time each of them last became converged. Shows whether a cold start ends in a tail.
   */
  synchronized long convergedShareNanos(double share) {
    long[] times =
        groups.values().stream()
            .filter(g -> g.converged)
            .mapToLong(g -> g.convergedNanos)
            .sorted()
            .toArray();
    int needed = Math.max(1, (int) Math.ceil(share * expectedGroups));
    return times.length < needed ? -1 : times[needed - 1];
  }

  synchronized int convergedGroups() {
    return converged;
  }

  synchronized long allConvergedNanos() {
    return allConvergedNanos;
  }

  synchronized long firstLeaderNanos() {
    return firstLeaderNanos;
  }

  /** The pod (namespace/name) labeled leader in a group (namespace/app), or null. */
  synchronized String leader(String group) {
    Group g = groups.get(group);
    return g == null ? null : g.leader;
  }

  synchronized long leaderSinceNanos(String group) {
    return groups.get(group).leaderSinceNanos;
  }

  /** Groups whose leader is now a pod other than the one given. */
  synchronized Set<String> replaced(Map<String, String> oldLeaders) {
    Set<String> out = new HashSet<>();
    oldLeaders.forEach(
        (group, old) -> {
          Group g = groups.get(group);
          if (g != null && g.leader != null && !g.leader.equals(old)) {
            out.add(group);
          }
        });
    return out;
  }

  @Override
  public void close() {
    podInformer.close();
    groupInformer.close();
  }
}
