package dev.baton.operator.pods;

import dev.baton.client.BatonNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The pod informer's store (docs/design.md, "A cache the size of what matters"). Every pod of the
 * watched namespaces is kept, in one of two forms:
 *
 * <ul>
 *   <li><b>whole</b>: a {@link PodSkeleton}, for a pod some group or lock selects, or that carries
 *       one of Baton's marks (a label or annotation of baton.dev);
 *   <li><b>compact</b>: a {@link CompactPod}, for every other pod: the same fields in a sixth of
 *       the memory, invisible to readers.
 * </ul>
 *
 * <p>A pod's form is decided on every event from the {@link Interest}s the controllers register,
 * which read their own caches. A group or lock the informer heard of after a pod's last event calls
 * {@link #reconsider}, which turns the compact pods its selector matches into whole ones. So a pod
 * created long before its group is known without asking the API server.
 *
 * <p>To the informer, both forms are there: every pod's update and deletion is delivered (a lock's
 * holder may be any pod), and a relist removes pods of either form that are gone.
 */
public final class PodStore implements ItemStore<Pod> {

  /** Whether a controller needs this pod (a skeleton) in its reads. */
  @FunctionalInterface
  public interface Interest {
    boolean wants(Pod pod);
  }

  private final List<Interest> interests;

  /** Whole pods by namespace and name. */
  private final Map<String, Map<String, Pod>> wholePods = new ConcurrentHashMap<>();

  /** Compact pods by namespace and name. */
  private final Map<String, Map<String, CompactPod>> compactPods = new ConcurrentHashMap<>();

  /** Whole pods by label: namespace/key=value to names. */
  private final Map<String, Set<String>> byLabel = new ConcurrentHashMap<>();

  /** Whole pods by the group that labeled them: namespace/group to names. */
  private final Map<String, Set<String>> byGroup = new ConcurrentHashMap<>();

  PodStore(List<Interest> interests) {
    this.interests = interests;
  }

  /** A store whose interests are added later, for tests. */
  static PodStore standalone() {
    return new PodStore(new CopyOnWriteArrayList<>());
  }

  void addInterest(Interest interest) {
    interests.add(interest);
  }

  // --- reads: whole pods only -------------------------------------------------------------------

  public Optional<Pod> find(String namespace, String name) {
    Map<String, Pod> ns = wholePods.get(namespace);
    return ns == null ? Optional.empty() : Optional.ofNullable(ns.get(name));
  }

  public Stream<Pod> inNamespace(String namespace) {
    Map<String, Pod> ns = wholePods.get(namespace);
    return ns == null ? Stream.empty() : ns.values().stream();
  }

  public Stream<Pod> all() {
    return wholePods.values().stream().flatMap(ns -> ns.values().stream());
  }

  /** The uid of the pod of that name, whole or compact: whether a lock's holder still exists. */
  public Optional<String> uidOf(String namespace, String name) {
    Optional<Pod> kept = find(namespace, name);
    if (kept.isPresent()) {
      return Optional.ofNullable(kept.get().getMetadata().getUid());
    }
    Map<String, CompactPod> ns = compactPods.get(namespace);
    CompactPod compact = ns == null ? null : ns.get(name);
    return compact == null ? Optional.empty() : Optional.ofNullable(compact.uidText());
  }

  public List<Pod> withLabel(String namespace, String key, String value) {
    return named(namespace, byLabel.get(labelKey(namespace, key, value)));
  }

  public List<Pod> labeledBy(String namespace, String group) {
    return named(namespace, byGroup.get(namespace + "/" + group));
  }

  /** How many pods of each form the store holds: for metrics and tests. */
  public int wholeCount() {
    return wholePods.values().stream().mapToInt(Map::size).sum();
  }

  public int compactCount() {
    return compactPods.values().stream().mapToInt(Map::size).sum();
  }

  private List<Pod> named(String namespace, Set<String> names) {
    if (names == null || names.isEmpty()) {
      return List.of();
    }
    Map<String, Pod> ns = wholePods.get(namespace);
    if (ns == null) {
      return List.of();
    }
    return names.stream().map(ns::get).filter(p -> p != null).toList();
  }

  /**
   * Makes whole the compact pods of the namespace whose labels the predicate accepts: what a group
   * or lock with a new selector calls before it reads. Returns how many.
   */
  public synchronized int reconsider(String namespace, Predicate<Map<String, String>> labels) {
    Map<String, CompactPod> ns = compactPods.get(namespace);
    if (ns == null) {
      return 0;
    }
    int promoted = 0;
    for (var e : List.copyOf(ns.entrySet())) {
      if (labels.test(e.getValue().labelView())) {
        ns.remove(e.getKey());
        keepWhole(namespace, e.getKey(), e.getValue().toPod(namespace, e.getKey()));
        promoted++;
      }
    }
    return promoted;
  }

  // --- the informer's side ---------------------------------------------------------------------

  @Override
  public String getKey(Pod pod) {
    return Cache.metaNamespaceKeyFunc(pod);
  }

  /**
   * Stores the pod in the form it deserves; returns what was there, in skeleton form. A whole pod
   * that stays whole is replaced in place, so a reader never misses it in the middle of an update.
   */
  @Override
  public synchronized Pod put(String key, Pod pod) {
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    Pod skeleton = PodSkeleton.of(pod);
    if (wanted(skeleton)) {
      Pod old =
          wholePods.computeIfAbsent(namespace, n -> new ConcurrentHashMap<>()).put(name, skeleton);
      index(namespace, name, skeleton, true);
      if (old != null) {
        unindexWhatChanged(namespace, name, old, skeleton);
        return old;
      }
      return dropCompact(namespace, name);
    }
    Pod old = drop(namespace, name);
    compactPods
        .computeIfAbsent(namespace, n -> new ConcurrentHashMap<>())
        .put(name, CompactPod.of(skeleton));
    return old;
  }

  @Override
  public synchronized Pod remove(String key) {
    int slash = key.indexOf('/');
    return drop(key.substring(0, slash), key.substring(slash + 1));
  }

  @Override
  public Stream<String> keySet() {
    return Stream.concat(keys(wholePods), keys(compactPods));
  }

  private static Stream<String> keys(Map<String, ? extends Map<String, ?>> byNamespace) {
    return byNamespace.entrySet().stream()
        .flatMap(ns -> ns.getValue().keySet().stream().map(name -> ns.getKey() + "/" + name));
  }

  /**
   * Both forms: the informer lists them to find, after a relist, what is gone. Only the keys are
   * read there, so a compact pod is given as its name alone: a relist of 30,000 pods does not
   * rebuild 30,000 skeletons at once. ({@link #remove} gives the whole pod to the deletion.)
   */
  @Override
  public Stream<Pod> values() {
    return Stream.concat(
        all(),
        compactPods.entrySet().stream()
            .flatMap(
                ns ->
                    ns.getValue().keySet().stream()
                        .map(
                            name ->
                                new PodBuilder()
                                    .withNewMetadata()
                                    .withNamespace(ns.getKey())
                                    .withName(name)
                                    .endMetadata()
                                    .build())));
  }

  @Override
  public int size() {
    return wholeCount() + compactCount();
  }

  /**
   * Whole pods only. The informer asks this for the pods it announces once synced; compact ones are
   * announced by their next event, so a start with 30,000 unrelated pods wakes nothing.
   */
  @Override
  public Pod get(String key) {
    int slash = key.indexOf('/');
    return slash < 0 ? null : find(key.substring(0, slash), key.substring(slash + 1)).orElse(null);
  }

  /** Not every object is kept whole: the informer then defers its first announcements to get(). */
  @Override
  public boolean isFullState() {
    return false;
  }

  private boolean wanted(Pod skeleton) {
    if (carriesBatonMark(skeleton)) {
      return true;
    }
    for (Interest i : interests) {
      if (i.wants(skeleton)) {
        return true;
      }
    }
    return false;
  }

  /** Labels or annotations Baton wrote: it must find the pod again to take them off. */
  static boolean carriesBatonMark(Pod pod) {
    var labels = pod.getMetadata().getLabels();
    if (labels != null && labels.keySet().stream().anyMatch(BatonNames::isBatonKey)) {
      return true;
    }
    var annotations = pod.getMetadata().getAnnotations();
    return annotations != null && annotations.keySet().stream().anyMatch(BatonNames::isBatonKey);
  }

  private void keepWhole(String namespace, String name, Pod skeleton) {
    wholePods.computeIfAbsent(namespace, n -> new ConcurrentHashMap<>()).put(name, skeleton);
    index(namespace, name, skeleton, true);
  }

  /** Removes the pod in either form; returns it as a skeleton, or null. */
  private Pod drop(String namespace, String name) {
    Map<String, Pod> s = wholePods.get(namespace);
    Pod old = s == null ? null : s.remove(name);
    if (old != null) {
      index(namespace, name, old, false);
      return old;
    }
    return dropCompact(namespace, name);
  }

  /** Removes the pod's compact form; returns it as a skeleton, or null. */
  private Pod dropCompact(String namespace, String name) {
    Map<String, CompactPod> u = compactPods.get(namespace);
    CompactPod compact = u == null ? null : u.remove(name);
    return compact == null ? null : compact.toPod(namespace, name);
  }

  /** Takes the pod out of the index entries the old copy had and the new one has not. */
  private void unindexWhatChanged(String namespace, String name, Pod old, Pod now) {
    var before = old.getMetadata().getLabels();
    var after = now.getMetadata().getLabels();
    if (before != null) {
      before.forEach(
          (k, v) -> {
            if (after == null || !v.equals(after.get(k))) {
              update(byLabel, labelKey(namespace, k, v), name, false);
            }
          });
    }
    String groupBefore = groupOf(old);
    if (groupBefore != null && !groupBefore.equals(groupOf(now))) {
      update(byGroup, namespace + "/" + groupBefore, name, false);
    }
  }

  private static String groupOf(Pod pod) {
    var annotations = pod.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(BatonNames.GROUP_ANNOTATION);
  }

  private void index(String namespace, String name, Pod pod, boolean add) {
    var labels = pod.getMetadata().getLabels();
    if (labels != null) {
      labels.forEach((k, v) -> update(byLabel, labelKey(namespace, k, v), name, add));
    }
    String group = groupOf(pod);
    if (group != null) {
      update(byGroup, namespace + "/" + group, name, add);
    }
  }

  private static void update(Map<String, Set<String>> index, String key, String name, boolean add) {
    if (add) {
      index.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(name);
    } else {
      index.computeIfPresent(
          key,
          (k, names) -> {
            names.remove(name);
            return names.isEmpty() ? null : names;
          });
    }
  }

  static String labelKey(String namespace, String key, String value) {
    return namespace + "/" + key + "=" + value;
  }
}
