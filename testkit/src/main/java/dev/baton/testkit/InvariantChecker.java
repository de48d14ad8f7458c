package dev.baton.testkit;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Watches every pod of a namespace and checks the invariants of docs/design.md as the API server
 * reports changes, in order: never two leaders in one group; a new leader always with a higher term
 * and terms never going back; and, sampled every 100 ms, that the labeled leader agrees with the
 * Redis holder and that a group with ready candidates has a leader, each within a bound counted
 * from the last disruption (a Redis or operator kill), not from the start of a disagreement.
 */
public final class InvariantChecker implements AutoCloseable {

  private static final String GROUP = "baton.dev/leader-group";
  private static final String TERM = "baton.dev/term";

  private record PodView(String uid, String group, String role, Long term, boolean ready) {}

  private final String roleLabel;
  private final Duration bound;
  private final Supplier<Map<String, String>> redisHolders;
  private final Map<String, PodView> pods = new HashMap<>();
  private final Map<String, Long> lastTerm = new HashMap<>();
  private final Map<String, String> lastLeaderUid = new HashMap<>();
  private final Map<String, Long> disagreeSince = new HashMap<>();
  private final Map<String, Long> leaderlessSince = new HashMap<>();
  private final List<String> history = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private final Watch watch;
  private final ScheduledExecutorService sampler;
  private volatile long lastDisruption = System.nanoTime();
  private long events;
  private long failovers;

  /**
   * @param redisHolders group name to holder pod name (null when free); null while Redis is down
   */
  public InvariantChecker(
      KubernetesClient client,
      String namespace,
      String roleLabel,
      Duration bound,
      Supplier<Map<String, String>> redisHolders) {
    this.roleLabel = roleLabel;
    this.bound = bound;
    this.redisHolders = redisHolders;
    this.watch =
        client
            .pods()
            .inNamespace(namespace)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    onPod(action, pod);
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    if (cause != null) {
                      synchronized (InvariantChecker.this) {
                        violations.add("the pod watch closed: " + cause.getMessage());
                      }
                    }
                  }
                });
    sampler = Executors.newSingleThreadScheduledExecutor();
    sampler.scheduleWithFixedDelay(this::sample, 100, 100, TimeUnit.MILLISECONDS);
  }

  /** Called by the chaos driver on a Redis or operator kill: bounds count from here. */
  public void disrupted(String what) {
    lastDisruption = System.nanoTime();
    note("DISRUPTION " + what);
  }

  public synchronized void note(String line) {
    history.add(String.format("%8.3f %s", System.nanoTime() / 1e9 % 100_000, line));
  }

  private synchronized void onPod(Watcher.Action action, Pod pod) {
    events++;
    String name = pod.getMetadata().getName();
    var labels = pod.getMetadata().getLabels();
    var annotations = pod.getMetadata().getAnnotations();
    String group = annotations == null ? null : annotations.get(GROUP);
    String role = labels == null ? null : labels.get(roleLabel);
    String termText = annotations == null ? null : annotations.get(TERM);
    Long term = termText == null ? null : Long.valueOf(termText);
    boolean ready =
        pod.getMetadata().getDeletionTimestamp() == null
            && pod.getStatus() != null
            && pod.getStatus().getConditions() != null
            && pod.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    if (action == Watcher.Action.DELETED) {
      pods.remove(name);
    } else {
      pods.put(name, new PodView(pod.getMetadata().getUid(), group, role, term, ready));
    }
    note(
        action + " " + name + " group=" + group + " role=" + role + " term=" + term + " ready="
            + ready);
    if (group == null) {
      return;
    }
    Set<String> leaders = leadersOf(group);
    if (leaders.size() > 1) {
      violations.add("group " + group + " has two leaders at once: " + leaders);
    }
    if ("leader".equals(role) && term != null && action != Watcher.Action.DELETED) {
      Long last = lastTerm.get(group);
      String uid = pod.getMetadata().getUid();
      if (last != null && term < last) {
        violations.add(
            "group " + group + ": term went back from " + last + " to " + term + " on " + name);
      }
      if (last != null && !uid.equals(lastLeaderUid.get(group)) && term <= last) {
        violations.add(
            "group "
                + group
                + ": new leader "
                + name
                + " with term "
                + term
                + ", not above the previous "
                + last);
      }
      if (lastLeaderUid.containsKey(group) && !uid.equals(lastLeaderUid.get(group))) {
        failovers++;
      }
      lastTerm.merge(group, term, Math::max);
      lastLeaderUid.put(group, uid);
    }
  }

  private Set<String> leadersOf(String group) {
    Set<String> out = new TreeSet<>();
    pods.forEach(
        (name, v) -> {
          if (group.equals(v.group()) && "leader".equals(v.role())) {
            out.add(name);
          }
        });
    return out;
  }

  private void sample() {
    Map<String, String> holders;
    try {
      holders = redisHolders.get();
    } catch (RuntimeException e) {
      holders = null;
    }
    synchronized (this) {
      long now = System.nanoTime();
      Set<String> groups = new TreeSet<>();
      pods.values()
          .forEach(
              v -> {
                if (v.group() != null) {
                  groups.add(v.group());
                }
              });
      for (String g : groups) {
        Set<String> leaders = leadersOf(g);
        String labeled = leaders.size() == 1 ? leaders.iterator().next() : null;
        if (holders != null) {
          check(
              disagreeSince,
              g,
              !Objects.equals(labeled, holders.get(g)),
              now,
              "labeled leader " + labeled + " is not the Redis holder " + holders.get(g));
        }
        boolean anyReady = pods.values().stream().anyMatch(v -> g.equals(v.group()) && v.ready());
        check(
            leaderlessSince,
            g,
            anyReady && leaders.isEmpty(),
            now,
            "no leader although candidates are ready");
      }
    }
  }

  private void check(Map<String, Long> since, String group, boolean bad, long now, String what) {
    if (!bad) {
      since.remove(group);
      return;
    }
    long start = Math.max(since.computeIfAbsent(group, g -> now), lastDisruption);
    if (now - start > bound.toNanos()) {
      violations.add("group " + group + ": " + what + " for more than " + bound.toSeconds() + " s");
      since.put(group, now);
    }
  }

  public synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  /** How many times a group's leader label moved to another pod. */
  public synchronized long failovers() {
    return failovers;
  }

  public synchronized long events() {
    return events;
  }

  public synchronized String history(int lastLines) {
    return String.join(
        "\n", history.subList(Math.max(0, history.size() - lastLines), history.size()));
  }

  @Override
  public void close() {
    sampler.shutdownNow();
    watch.close();
  }
}
