package dev.baton.bench.leadership;

import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** When the benchmark's own pod watch saw each pod gain or lose the leader label, last time. */
final class LabelTimes implements AutoCloseable {

  private final Map<String, Long> promoted = new ConcurrentHashMap<>();
  private final Map<String, Long> demoted = new ConcurrentHashMap<>();
  private final Map<String, Boolean> leading = new ConcurrentHashMap<>();
  private final Watch watch;

  LabelTimes(KubernetesClient client) {
    watch =
        client
            .pods()
            .inNamespace(Sandbox.NS)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    long now = System.nanoTime();
                    String name = pod.getMetadata().getName();
                    boolean leader =
                        action != Action.DELETED
                            && "leader"
                                .equals(pod.getMetadata().getLabels().get(LeadershipBench.ROLE));
                    Boolean was = leading.put(name, leader);
                    if (leader && !Boolean.TRUE.equals(was)) {
                      promoted.put(name, now);
                    } else if (!leader && Boolean.TRUE.equals(was)) {
                      demoted.put(name, now);
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
  }

  long promotedAt(String pod) {
    return promoted.getOrDefault(pod, 0L);
  }

  long demotedAt(String pod) {
    return demoted.getOrDefault(pod, 0L);
  }

  @Override
  public void close() {
    watch.close();
  }
}
