package dev.baton.operator.redislock;

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
 * Watches the pods of a namespace and records every change of one lock's holder label and token
 * annotation, in the order the API server emits them. Two pods labeled {@code held} at once, or a
 * token below the last one seen, is a violation (the same token again is the same hold).
 */
final class HeldLabelWatcher implements AutoCloseable {

  private final String key;
  private final Map<String, String> held = new TreeMap<>();
  private final List<String> history = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private final List<Long> tokens = new ArrayList<>();
  private final Watch watch;

  HeldLabelWatcher(KubernetesClient client, String namespace, String lockName) {
    this.key = "locks.baton.dev/" + lockName;
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
    var labels = pod.getMetadata().getLabels();
    var annotations = pod.getMetadata().getAnnotations();
    String label = labels == null ? null : labels.get(key);
    String token = annotations == null ? null : annotations.get(key);
    if (action == Watcher.Action.DELETED || !"held".equals(label)) {
      held.remove(name);
    } else {
      held.put(name, token);
      long last = tokens.isEmpty() ? 0 : tokens.get(tokens.size() - 1);
      if (token != null && Long.parseLong(token) != last) {
        long t = Long.parseLong(token);
        if (t < last) {
          violations.add("token " + t + " on " + name + " after " + tokens);
        }
        tokens.add(t);
      }
    }
    Set<String> holders = new TreeSet<>(held.keySet());
    history.add(action + " " + name + " -> " + label + "/" + token + " | held by " + holders);
    if (holders.size() > 1) {
      violations.add("two holders at once: " + holders + " after " + action + " " + name);
    }
  }

  synchronized Set<String> holders() {
    return new TreeSet<>(held.keySet());
  }

  /** Every token seen on a labeled holder, in order. */
  synchronized List<Long> tokens() {
    return List.copyOf(tokens);
  }

  synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  synchronized String history() {
    return String.join("\n", history);
  }

  @Override
  public void close() {
    watch.close();
  }
}
