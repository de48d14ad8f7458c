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
 * is a violation of the one-leader invariant. That count means what the server stored only while
 * events arrive in the order written, as a real server's watch delivers them; an event older than
 * one before it (a lower resourceVersion) is recorded apart ({@link #outOfOrder}), so a delivery
 * fault of a test server is never taken for an operator's fault or hidden by one.
 */
public final class RoleWatcher implements AutoCloseable {

  private final String roleLabel;
  private final Map<String, String> roles = new TreeMap<>();
  private final List<String> history = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private final List<Long> leaderChangeNanos = new ArrayList<>();
  private final List<String> outOfOrder = new ArrayList<>();
  private long lastVersion = -1;
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
    checkOrder(action, pod);
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

  /**
   * A write's event carries the version the write gave the object, and a watch delivers writes in
   * the order they were made. A deletion's event is left out of the comparison: only writes that
   * store a new version of the object are compared.
   */
  private void checkOrder(Watcher.Action action, Pod pod) {
    if (action == Watcher.Action.DELETED) {
      return;
    }
    long version;
    try {
      version = Long.parseLong(pod.getMetadata().getResourceVersion());
    } catch (NumberFormatException e) {
      return; // opaque, as a server may make it: nothing to compare
    }
    if (version < lastVersion) {
      outOfOrder.add(
          action + " " + pod.getMetadata().getName() + " at " + version + " after " + lastVersion);
    }
    lastVersion = Math.max(lastVersion, version);
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

  /** Events that arrived after a later write's event: the watch reordered them. */
  public synchronized List<String> outOfOrder() {
    return List.copyOf(outOfOrder);
  }

  public synchronized List<String> history() {
    return List.copyOf(history);
  }

  @Override
  public void close() {
    watch.close();
  }
}
