package dev.baton.operator.pods;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's one view of pods, shared by both controllers (docs/design.md, "A cache the size of
 * what matters"): one informer per watched namespace (or one for all), listed in pages, each with a
 * {@link PodStore} that keeps whole only the pods a group or lock cares about. Each controller
 * hears every pod event through its own {@link PodEvents} and reads the whole pods here.
 */
public final class PodCatalog implements AutoCloseable {

  /** Pods per page when an informer lists them. */
  public static final long LIST_PAGE = 500;

  private static final Logger log = LoggerFactory.getLogger(PodCatalog.class);

  private static final String ALL = "";

  private final KubernetesClient client;
  private final List<PodStore.Interest> interests = new CopyOnWriteArrayList<>();
  private final List<ResourceEventHandler<Pod>> listeners = new CopyOnWriteArrayList<>();
  private final Map<String, PodStore> stores = new LinkedHashMap<>();
  private final List<SharedIndexInformer<Pod>> informers = new ArrayList<>();
  private CompletableFuture<Void> synced;

  /**
   * @param namespaces the namespaces to watch; empty for all
   */
  public PodCatalog(KubernetesClient client, Set<String> namespaces) {
    this.client = client;
    if (namespaces.isEmpty()) {
      stores.put(ALL, new PodStore(interests));
    } else {
      namespaces.forEach(ns -> stores.put(ns, new PodStore(interests)));
    }
  }

  /** Registered before {@link #start}: consulted on every pod event. */
  public void addInterest(PodStore.Interest interest) {
    interests.add(interest);
  }

  void addListener(ResourceEventHandler<Pod> listener) {
    listeners.add(listener);
  }

  /** Starts the informers once; every caller waits for the same first listing. */
  public synchronized CompletableFuture<Void> start() {
    if (synced != null) {
      return synced;
    }
    List<CompletableFuture<Void>> lists = new ArrayList<>();
    stores.forEach(
        (ns, store) -> {
          var pods =
              ns.equals(ALL) ? client.pods().inAnyNamespace() : client.pods().inNamespace(ns);
          SharedIndexInformer<Pod> informer = pods.withLimit(LIST_PAGE).runnableInformer(0);
          // The store answers by namespace itself; Fabric8's index would hold a key per pod.
          informer.removeNamespaceIndex();
          informer.itemStore(store);
          informer.addEventHandler(new Fanout());
          // As JOSDK's informers do: a failed list or watch is tried again with backoff (a page
          // cut off mid-way, an API server restarting), except a pod this client cannot decode.
          informer.exceptionHandler(
              (started, e) -> {
                boolean retry = !ExceptionHandler.isDeserializationException(e);
                log.warn(
                    "Listing or watching pods{} failed{}: {}",
                    ns.equals(ALL) ? "" : " in " + ns,
                    retry ? ", trying again" : "",
                    e.toString());
                return retry;
              });
          informers.add(informer);
          lists.add(informer.start().toCompletableFuture());
        });
    synced = CompletableFuture.allOf(lists.toArray(CompletableFuture[]::new));
    return synced;
  }

  /** Whether every informer is watching: what readiness reports. */
  public boolean watching() {
    synchronized (this) {
      return synced != null
          && synced.isDone()
          && !synced.isCompletedExceptionally()
          && informers.stream().allMatch(SharedIndexInformer::isWatching);
    }
  }

  @Override
  public synchronized void close() {
    informers.forEach(SharedIndexInformer::stop);
  }

  // --- reads: the pods some group or lock cares about -------------------------------------------

  private Optional<PodStore> storeOf(String namespace) {
    PodStore all = stores.get(ALL);
    return Optional.ofNullable(all != null ? all : stores.get(namespace));
  }

  public Optional<Pod> get(String namespace, String name) {
    return storeOf(namespace).flatMap(s -> s.find(namespace, name));
  }

  /** See {@link PodStore#uidOf}. */
  public Optional<String> uidOf(String namespace, String name) {
    return storeOf(namespace).flatMap(s -> s.uidOf(namespace, name));
  }

  public Stream<Pod> inNamespace(String namespace) {
    return storeOf(namespace).map(s -> s.inNamespace(namespace)).orElseGet(Stream::empty);
  }

  public Stream<Pod> all() {
    return stores.values().stream().flatMap(PodStore::all);
  }

  public List<Pod> withLabel(String namespace, String key, String value) {
    return storeOf(namespace).map(s -> s.withLabel(namespace, key, value)).orElse(List.of());
  }

  public List<Pod> labeledBy(String namespace, String group) {
    return storeOf(namespace).map(s -> s.labeledBy(namespace, group)).orElse(List.of());
  }

  /** See {@link PodStore#reconsider}. */
  public int reconsider(String namespace, Predicate<Map<String, String>> labels) {
    return storeOf(namespace).map(s -> s.reconsider(namespace, labels)).orElse(0);
  }

  public int wholeCount() {
    return stores.values().stream().mapToInt(PodStore::wholeCount).sum();
  }

  public int compactCount() {
    return stores.values().stream().mapToInt(PodStore::compactCount).sum();
  }

  /** Every informer's events, to every controller. */
  private final class Fanout implements ResourceEventHandler<Pod> {
    @Override
    public void onAdd(Pod pod) {
      listeners.forEach(l -> l.onAdd(pod));
    }

    /**
     * Status churn the operator does not read (restarts, probe times) reaches no controller;
     * decided once here, not once per controller.
     */
    @Override
    public void onUpdate(Pod before, Pod now) {
      if (PodSkeleton.changesWhatMatters(now, before)) {
        listeners.forEach(l -> l.onUpdate(before, now));
      }
    }

    @Override
    public void onDelete(Pod pod, boolean finalStateUnknown) {
      listeners.forEach(l -> l.onDelete(pod, finalStateUnknown));
    }
  }
}
