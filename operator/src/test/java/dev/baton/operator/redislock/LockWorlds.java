package dev.baton.operator.redislock;

import dev.baton.client.InstanceView;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.pods.Candidate;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pods, lock values and worlds the LockDecision tests decide on: pods of namespace shop, grants
 * of this operator's cluster (default) or of another (east), and locks applications hold.
 */
final class LockWorlds {

  private static final String NS = "shop";
  static final String CLUSTER = "default";

  private LockWorlds() {}

  static LockWorld.LockCandidate pod(String name, boolean ready, boolean labeled) {
    return pod(name, ready, labeled, 0, 0);
  }

  static LockWorld.LockCandidate pod(
      String name, boolean ready, boolean labeled, int priority, long ageSeconds) {
    Candidate c =
        new Candidate(
            name,
            uid(name),
            ready,
            ready ? Candidate.Ineligibility.NONE : Candidate.Ineligibility.NOT_READY,
            Instant.parse("2026-01-01T00:00:00Z").minusSeconds(ageSeconds),
            priority,
            false);
    return new LockWorld.LockCandidate(c, NS, labeled, FakeLockSides.podNamed(name));
  }

  private static String uid(String pod) {
    return pod + "-uid";
  }

  /** A grant of this operator's cluster for a pod. */
  static String grant(String pod) {
    return LockLabels.grantValue(CLUSTER, NS, pod, uid(pod));
  }

  static String grantOfAnotherCluster(String pod) {
    return LockLabels.grantValue("east", NS, pod, uid(pod));
  }

  static String appHold(String pod) {
    return LockValues.pod(NS, pod, uid(pod), LockValues.random());
  }

  static InstanceView holds(String value, long counter) {
    return new InstanceView(
        "redis", true, false, value, value == null ? -2 : 20_000, counter, 1_000, false, null);
  }

  static LockView one(String value) {
    return new LockView(List.of(holds(value, 7)), 1);
  }

  static LockWorld world(
      boolean grants,
      LockView view,
      List<LockWorld.LockCandidate> pods,
      Map<String, Boolean> alive,
      String granted,
      boolean recent) {
    return read(grants, false, view, pods, List.of(), alive, granted, held(granted, view), recent);
  }

  /** A world as a reconcile reads it, before it acts: nothing renewed, reaped or moved yet. */
  static LockWorld read(
      boolean grants,
      boolean forceRelease,
      LockView view,
      List<LockWorld.LockCandidate> pods,
      List<Pod> labeled,
      Map<String, Boolean> alive,
      String granted,
      LockState.Grant held,
      boolean recent) {
    return new LockWorld(
        CLUSTER,
        grants,
        forceRelease,
        view,
        pods,
        labeled,
        alive,
        granted,
        held,
        recent,
        null,
        false,
        null,
        null);
  }

  static LockWorld granting(LockView view, LockWorld.LockCandidate... pods) {
    Map<String, Boolean> alive = new HashMap<>();
    view.values().forEach(v -> alive.put(v, true));
    return world(true, view, List.of(pods), alive, null, false);
  }

  /**
   * The grant a state names when this operator granted {@code value} with Redis's token; null when
   * the value is none, or not a grant of this cluster (a state names only its own).
   */
  static LockState.Grant held(String value, LockView view) {
    return value == null
        ? null
        : LockLabels.grantedHere(value, CLUSTER)
            .map(pod -> new LockState.Grant(value, pod, view.tokenOf(value), 0, view))
            .orElse(null);
  }
}
