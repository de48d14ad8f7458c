package dev.baton.kubectl;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.BatonNames;
import dev.baton.client.PodReadiness;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The plugin's writes: each is the annotation or field a person could set with kubectl, written
 * with a merge patch, then (unless --no-wait) watched until the operator has carried it out or said
 * why not. What each changed is printed.
 */
final class Levers {

  private static final Duration POLL = Duration.ofMillis(100);

  private final KubernetesClient client;
  private final String namespace;
  private final PrintStream out;
  private final boolean wait;
  private final Duration timeout;

  Levers(
      KubernetesClient client, String namespace, PrintStream out, boolean wait, Duration timeout) {
    this.client = client;
    this.namespace = namespace;
    this.out = out;
    this.wait = wait;
    this.timeout = timeout;
  }

  int switchover(String groupName, String to) {
    LeaderGroup g = group(groupName);
    LeaderGroupStatus before = status(g);
    String from = before.getLeader();
    String target = to != null ? to : bestFollower(g, from);
    if (target == null) {
      out.println(
          "LeaderGroup " + namespace + "/" + groupName + ": no ready follower to hand over to.");
      return 1;
    }
    if (target.equals(from)) {
      out.println(target + " leads already (term " + before.getTerm() + "); nothing to do.");
      return 0;
    }
    Map<String, Integer> refusalsBefore = refusals(groupName);
    annotate(LeaderGroup.class, groupName, BatonNames.SWITCHOVER_ANNOTATION, target);
    out.println(
        "LeaderGroup "
            + namespace
            + "/"
            + groupName
            + ": asked to hand leadership from "
            + (from == null || from.isEmpty()
                ? "nobody"
                : from + " (term " + before.getTerm() + ")")
            + " to "
            + target
            + " (annotation "
            + BatonNames.SWITCHOVER_ANNOTATION
            + "="
            + target
            + ").");
    if (!wait) {
      return 0;
    }
    long start = System.nanoTime();
    Outcome outcome =
        until(
            () -> {
              LeaderGroup now = group(groupName);
              LeaderGroupStatus s = status(now);
              boolean asked =
                  annotation(now.getMetadata().getAnnotations(), BatonNames.SWITCHOVER_ANNOTATION)
                      != null;
              if (target.equals(s.getLeader()) && !asked) {
                return Outcome.done(
                    target
                        + " leads now with term "
                        + s.getTerm()
                        + " ("
                        + millisSince(start)
                        + " ms).");
              }
              String refused = newRefusal(groupName, refusalsBefore);
              return refused == null ? null : Outcome.refused("The operator refused: " + refused);
            });
    return report(outcome, () -> "no switchover within " + timeout.toSeconds() + " s");
  }

  int pause(String groupName, boolean paused) {
    LeaderGroup g = group(groupName);
    client
        .resources(LeaderGroup.class)
        .inNamespace(namespace)
        .withName(groupName)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(Map.of("spec", Map.of("paused", paused))));
    LeaderGroupStatus s = status(g);
    out.println(
        "LeaderGroup "
            + namespace
            + "/"
            + groupName
            + ": spec.paused set to "
            + paused
            + (paused
                ? "; leadership stays with " + (s.getLeader() == null ? "nobody" : s.getLeader())
                : "; elections resume")
            + ".");
    if (!wait) {
      return 0;
    }
    long start = System.nanoTime();
    Outcome outcome =
        until(
            () -> {
              LeaderGroup now = group(groupName);
              LeaderGroupStatus st = status(now);
              Long generation = now.getMetadata().getGeneration();
              boolean seen =
                  st.getObservedGeneration() != null
                      && generation != null
                      && st.getObservedGeneration() >= generation;
              return seen
                  ? Outcome.done(
                      "The operator saw it ("
                          + millisSince(start)
                          + " ms); leader "
                          + (st.getLeader() == null ? "none" : st.getLeader())
                          + ", term "
                          + st.getTerm()
                          + ".")
                  : null;
            });
    return report(
        outcome, () -> "the operator did not take it up within " + timeout.toSeconds() + " s");
  }

  int release(String lockName) {
    RedisLock lock =
        client.resources(RedisLock.class).inNamespace(namespace).withName(lockName).get();
    if (lock == null) {
      throw new Refused("no RedisLock " + lockName + " in namespace " + namespace);
    }
    RedisLockStatus before = lock.getStatus() == null ? new RedisLockStatus() : lock.getStatus();
    annotate(
        RedisLock.class, lockName, BatonNames.FORCE_RELEASE_ANNOTATION, Instant.now().toString());
    out.println(
        "RedisLock "
            + namespace
            + "/"
            + lockName
            + ": asked to release it"
            + (before.getHolder() == null
                ? " (no holder recorded)"
                : " from " + before.getHolder() + " (token " + before.getFencingToken() + ")")
            + ".");
    if (!wait) {
      return 0;
    }
    long start = System.nanoTime();
    Outcome outcome =
        until(
            () -> {
              RedisLock now =
                  client.resources(RedisLock.class).inNamespace(namespace).withName(lockName).get();
              if (now == null) {
                return Outcome.done("The RedisLock is gone.");
              }
              if (annotation(
                      now.getMetadata().getAnnotations(), BatonNames.FORCE_RELEASE_ANNOTATION)
                  != null) {
                return null;
              }
              RedisLockStatus s = now.getStatus() == null ? new RedisLockStatus() : now.getStatus();
              return Outcome.done(
                  "Released ("
                      + millisSince(start)
                      + " ms); "
                      + (s.getHolder() == null
                          ? "nobody holds it now."
                          : "now held by "
                              + s.getHolder()
                              + " with token "
                              + s.getFencingToken()
                              + "."));
            });
    return report(outcome, () -> "not released within " + timeout.toSeconds() + " s");
  }

  /** The ready follower the operator itself would prefer: priority, then age, then name. */
  private String bestFollower(LeaderGroup g, String leader) {
    if (g.getSpec().getSelector() == null) {
      return null;
    }
    List<Pod> pods =
        client
            .pods()
            .inNamespace(namespace)
            .withLabelSelector(g.getSpec().getSelector())
            .list()
            .getItems();
    return pods.stream()
        .filter(p -> !p.getMetadata().getName().equals(leader))
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(
            p ->
                !"false"
                    .equals(
                        annotation(
                            p.getMetadata().getAnnotations(), BatonNames.CANDIDATE_ANNOTATION)))
        .filter(Levers::ready)
        .min(
            Comparator.comparingLong((Pod p) -> -priority(p))
                .thenComparing(
                    p -> Objects.requireNonNullElse(p.getMetadata().getCreationTimestamp(), ""))
                .thenComparing(p -> p.getMetadata().getName()))
        .map(p -> p.getMetadata().getName())
        .orElse(null);
  }

  /** Ready as the operator counts it, so that the pod named is one it would accept. */
  private static boolean ready(Pod p) {
    PodStatus s = p.getStatus();
    return s != null
        && PodReadiness.isReady(
            s.getPhase(), s.getConditions(), PodCondition::getType, PodCondition::getStatus);
  }

  private static long priority(Pod p) {
    try {
      String v = annotation(p.getMetadata().getAnnotations(), BatonNames.PRIORITY_ANNOTATION);
      return v == null ? 0 : Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** Count per SwitchoverRefused event of the group, to tell a new refusal from an old one. */
  private Map<String, Integer> refusals(String groupName) {
    Map<String, Integer> out = new HashMap<>();
    for (Event e : client.v1().events().inNamespace(namespace).list().getItems()) {
      if (isRefusal(e, groupName)) {
        out.put(e.getMetadata().getName(), e.getCount() == null ? 1 : e.getCount());
      }
    }
    return out;
  }

  private String newRefusal(String groupName, Map<String, Integer> before) {
    for (Event e : client.v1().events().inNamespace(namespace).list().getItems()) {
      if (isRefusal(e, groupName)) {
        int count = e.getCount() == null ? 1 : e.getCount();
        Integer was = before.get(e.getMetadata().getName());
        if (was == null || count > was) {
          return e.getMessage();
        }
      }
    }
    return null;
  }

  private static boolean isRefusal(Event e, String groupName) {
    return "SwitchoverRefused".equals(e.getReason())
        && e.getInvolvedObject() != null
        && "LeaderGroup".equals(e.getInvolvedObject().getKind())
        && groupName.equals(e.getInvolvedObject().getName());
  }

  private LeaderGroup group(String name) {
    LeaderGroup g = client.resources(LeaderGroup.class).inNamespace(namespace).withName(name).get();
    if (g == null) {
      throw new Refused("no LeaderGroup " + name + " in namespace " + namespace);
    }
    return g;
  }

  private static LeaderGroupStatus status(LeaderGroup g) {
    return g.getStatus() == null ? new LeaderGroupStatus() : g.getStatus();
  }

  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> void annotate(
      Class<T> type, String name, String key, String value) {
    client
        .resources(type)
        .inNamespace(namespace)
        .withName(name)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(Map.of("metadata", Map.of("annotations", Map.of(key, value)))));
  }

  private static String annotation(Map<String, String> annotations, String key) {
    return annotations == null ? null : annotations.get(key);
  }

  /** How a lever ended: carried out, or refused with the operator's reason; the line to print. */
  private record Outcome(boolean done, String message) {
    static Outcome done(String message) {
      return new Outcome(true, message);
    }

    static Outcome refused(String message) {
      return new Outcome(false, message);
    }
  }

  /** Polls until {@code check} gives an outcome, or the timeout; null then. */
  private Outcome until(Supplier<Outcome> check) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() - deadline < 0) {
      Outcome answer = check.get();
      if (answer != null) {
        return answer;
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }

  private int report(Outcome outcome, Supplier<String> timedOut) {
    if (outcome == null) {
      out.println("Gave up: " + timedOut.get() + ". See kubectl baton status.");
      return 1;
    }
    out.println(outcome.message());
    return outcome.done() ? 0 : 1;
  }

  private static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }
}
