package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.BatonNames;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.pods.Candidate;
import dev.baton.operator.pods.PodCatalog;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The observe step of a RedisLock reconcile: the lock on every Redis instance (or the view the
 * grant's last renewal answered with, while fresh), the pods its holder selector matches, and
 * whether the pods its values name still exist. Reads only, once per reconcile: a due renewal is a
 * step of the plan, and the read says whether tokens must be reserved, which the plan starts with.
 */
final class LockObserver {

  private final KubernetesClient client;
  private final String clusterId;
  private final Predicate<String> nodeLost;
  private final PodCatalog pods;
  private final LongSupplier nanoTime;

  /** The holder selector each lock had when its compact pods were last reconsidered. */
  private final Map<String, LabelSelector> reconsidered = new ConcurrentHashMap<>();

  /**
   * @param nanoTime the monotonic clock a grant's freshness is judged by ({@link System#nanoTime},
   *     or a test's)
   */
  LockObserver(
      KubernetesClient client,
      String clusterId,
      PodCatalog pods,
      Predicate<String> nodeLost,
      LongSupplier nanoTime) {
    this.client = client;
    this.clusterId = clusterId;
    this.pods = pods;
    this.nodeLost = nodeLost;
    this.nanoTime = nanoTime;
  }

  /**
   * Pods that existed before the pod cache knew this lock's holder selector are kept in compact
   * form; they become whole before the lock first reads them.
   */
  void seeSelected(RedisLock lock, LockSettings settings) {
    LabelSelector selector = settings.holderSelector();
    String uid = lock.getMetadata().getUid();
    if (selector == null || uid == null || selector.equals(reconsidered.get(uid))) {
      return;
    }
    pods.reconsider(
        lock.getMetadata().getNamespace(), labels -> LabelSelectors.matches(selector, labels));
    reconsidered.put(uid, selector);
  }

  void forget(RedisLock lock) {
    if (lock.getMetadata().getUid() != null) {
      reconsidered.remove(lock.getMetadata().getUid());
    }
  }

  /**
   * The world the first decision of a reconcile sees. While a grant held for an eligible pod was
   * renewed within half an interval, its renewal's view stands for the lock; otherwise the lock is
   * read, and the plan holds the renewal when it is due.
   *
   * @return the world, and whether tokens must be reserved before anything is decided
   * @throws QuorumUnavailable when no majority of instances answered
   */
  Look look(
      RedisLock lock,
      LockSettings settings,
      LockRedis store,
      LockState state,
      boolean forceRelease) {
    String ns = lock.getMetadata().getNamespace();
    List<LockWorld.LockCandidate> candidates = candidates(lock, settings);
    LockState.Grant grant = state.grant();
    boolean keptFresh =
        settings.grants()
            && grant != null
            && !forceRelease
            && eligible(candidates, grant)
            && fresh(grant, settings)
            && grant.view() != null;
    LockView view = keptFresh ? grant.view() : observe(settings, store);
    boolean recent = grant != null && fresh(grant, settings);
    return new Look(
        new LockWorld(
            clusterId,
            settings.grants(),
            forceRelease,
            view,
            candidates,
            pods.inNamespace(ns).filter(p -> HolderLabels.carries(p, settings.labelKey())).toList(),
            podAlive(view),
            state.grantedValue(),
            state.grant(),
            recent,
            keptFresh ? grant.value() : null,
            false,
            null,
            null),
        !keptFresh && (reserveTokens(view, state.block()) || uncovered(view, state.reserved())));
  }

  /**
   * What the observer saw, and whether that read shows too few tokens reserved (less than half a
   * block left on an instance, or none): a renewal's view reused is not a read, and shows nothing.
   */
  record Look(LockWorld world, boolean reserveTokens) {}

  /** Whether an instance has no reservation, or less than half a block left before its ceiling. */
  static boolean reserveTokens(LockView view, Reservations.Block block) {
    return view.instances().stream()
        .anyMatch(
            i -> i.reachable() && Reservations.runningLow(i.reserved(), i.counter(), block.size()));
  }

  /**
   * Whether an instance holds a reservation above the one the lock's status records: made for
   * another resource that had the key before (or in an earlier version, by a LeaderGroup on the
   * same key), or by another cluster. Tokens issued under it would not be covered by this lock's
   * status after Redis lost its data, so the status is raised to cover it first.
   */
  static boolean uncovered(LockView view, long recorded) {
    return view.instances().stream().anyMatch(i -> i.reachable() && i.reserved() > recorded);
  }

  /** Reads the lock on every instance. */
  private static LockView observe(LockSettings settings, LockRedis store) {
    return QuorumUnavailable.require(store.observe(settings.keys()));
  }

  /** Renewed within half an interval: nothing to send. */
  private boolean fresh(LockState.Grant grant, LockSettings settings) {
    return nanoTime.getAsLong() - grant.renewedAtNanos() < settings.interval().toNanos() / 2;
  }

  private static boolean eligible(List<LockWorld.LockCandidate> candidates, LockState.Grant grant) {
    return candidates.stream()
        .anyMatch(
            c ->
                c.namespace().equals(grant.pod().namespace())
                    && c.pod().uid().equals(grant.pod().uid())
                    && c.pod().eligible());
  }

  private List<LockWorld.LockCandidate> candidates(RedisLock lock, LockSettings settings) {
    if (!settings.grants()) {
      return List.of();
    }
    String ns = lock.getMetadata().getNamespace();
    return selected(ns, settings).stream()
        .map(
            p ->
                new LockWorld.LockCandidate(
                    Candidate.of(p, settings.labelKey(), nodeLost),
                    ns,
                    HolderLabels.carries(p, settings.labelKey()),
                    p))
        .toList();
  }

  /** The pods the holder selector matches, as the informer shows them. */
  private List<Pod> selected(String ns, LockSettings settings) {
    return pods.inNamespace(ns)
        .filter(p -> LabelSelectors.matches(settings.holderSelector(), p.getMetadata().getLabels()))
        .toList();
  }

  /** For each value that names a pod, whether that pod (with that uid) exists. */
  private Map<String, Boolean> podAlive(LockView view) {
    Map<String, Boolean> out = new HashMap<>();
    for (String value : view.values()) {
      LockValues.parsePod(value).ifPresent(ref -> out.put(value, podExists(ref)));
    }
    return out;
  }

  private boolean podExists(LockValues.PodRef ref) {
    // Any pod may hold a lock an application took: the catalog knows every pod, whole or not.
    if (pods.uidOf(ref.namespace(), ref.name()).filter(ref.uid()::equals).isPresent()) {
      return true;
    }
    // The cache may lag behind a pod that was just created: ask the API server before deleting.
    try {
      Pod pod = client.pods().inNamespace(ref.namespace()).withName(ref.name()).get();
      return pod != null && ref.uid().equals(pod.getMetadata().getUid());
    } catch (KubernetesClientException e) {
      return true;
    }
  }

  static boolean forceReleaseAsked(RedisLock lock) {
    return Metadata.request(lock, BatonNames.FORCE_RELEASE_ANNOTATION) != null;
  }
}
