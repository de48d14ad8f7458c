package dev.baton.testkit;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Watches the pods of a namespace and records every change of a role label, in the order the API
 * server emits them. After each event it counts the pods labeled leader: more than one at any point
 * is a violation of the one-leader invariant.
 */
public final class RoleWatcher implements AutoCloseable {

  private final String roleLabel;
  private final Map<String, String> roles = new TreeMap<>();
  private final List<String> history = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private final List<Long> leaderChangeNanos = new ArrayList<>();
  private final Watch watch;
  private String lastLeader;

  public RoleWatcher(KubernetesClient client, String namespace, String roleLabel) {
    this.roleLabel = roleLabel;
    this.watch =
        client
            .pods()
            .inNamespace(namespace)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    record(action, pod);
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
  }

  private synchronized void record(Watcher.Action action, Pod pod) {
    String name = pod.getMetadata().getName();
    String role =
        pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(roleLabel);
    if (action == Watcher.Action.DELETED) {
      roles.remove(name);
    } else if (role == null) {
      roles.remove(name);
    } else {
      roles.put(name, role);
    }
    Set<String> leaders = leaders();
    history.add(action + " " + name + " -> " + role + " | leaders " + leaders);
    if (leaders.size() > 1) {
      violations.add("two leaders at once: " + leaders + " after " + action + " " + name);
    }
    String leader = leaders.isEmpty() ? null : leaders.iterator().next();
    if (leader != null && lastLeader != null && !leader.equals(lastLeader)) {
      leaderChangeNanos.add(System.nanoTime());
    }
    if (leader != null) {
      lastLeader = leader;
    }
  }

  public synchronized Set<String> leaders() {
    Set<String> out = new TreeSet<>();
    roles.forEach(
        (pod, role) -> {
          if ("leader".equals(role)) {
            out.add(pod);
          }
        });
    return out;
  }

  /** How many times the leader label moved from one pod to another (the first is no move). */
  public synchronized int leaderChanges() {
    return leaderChangeNanos.size();
  }

  public synchronized long lastLeaderChangeNanos() {
    return leaderChangeNanos.isEmpty() ? -1 : leaderChangeNanos.get(leaderChangeNanos.size() - 1);
  }

  public synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  public synchronized List<String> history() {
    return List.copyOf(history);
  }

  @Override
  public void close() {
    watch.close();
  }
}
