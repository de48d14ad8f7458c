package dev.baton.operator.tenancy;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisKeys;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.operator.kube.EventReason;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Which LeaderGroup or RedisLock of the cluster holds each Redis key: one key, one resource, of
 * either kind (a per-resource Redis ACL rule on {@code baton:{<key>}:*} would otherwise cover two).
 * Of the resources that may use a key (it is in their namespace, or under a shared prefix, see
 * {@link KeyScope}), the eldest holds it: earliest creationTimestamp, then namespace, name and
 * kind, so every replica agrees. The others are refused until it is gone, and woken when it goes. A
 * resource whose key is not its namespace's claims nothing, so it cannot keep the rightful owner
 * out by being older. Both controllers' own informer caches are indexed by key, so a reconcile
 * looks up the holders of its key, not every resource.
 */
public final class KeyClaims {

  private static final String BY_KEY = "baton-key";

  private static final Comparator<HasMetadata> SENIORITY =
      Comparator.comparing(
              (HasMetadata r) -> r.getMetadata().getCreationTimestamp(),
              Comparator.nullsLast(Comparator.naturalOrder()))
          .thenComparing(r -> r.getMetadata().getNamespace())
          .thenComparing(r -> r.getMetadata().getName())
          .thenComparing(HasMetadata::getKind);

  private final KeyScope scope;
  private final Kind<LeaderGroup> groups =
      new Kind<>(LeaderGroup.class, g -> g.getSpec() == null ? null : g.getSpec().getElectionKey());
  private final Kind<RedisLock> locks =
      new Kind<>(RedisLock.class, l -> l.getSpec() == null ? null : l.getSpec().getKey());

  public KeyClaims(KeyScope scope) {
    this.scope = scope;
  }

  /** The key a resource uses: its spec's, else {@code <namespace>/<name>}. */
  public static String keyOf(LeaderGroup group) {
    return orDefault(group, group.getSpec() == null ? null : group.getSpec().getElectionKey());
  }

  public static String keyOf(RedisLock lock) {
    return orDefault(lock, lock.getSpec() == null ? null : lock.getSpec().getKey());
  }

  /**
   * Indexes the LeaderGroup controller's cache by key; the event source returned wakes a group when
   * the resource that held its key is gone.
   */
  public EventSource<?, LeaderGroup> groups(EventSourceContext<LeaderGroup> context) {
    return groups.watch(context.getPrimaryCache(), this::indexKey);
  }

  /** The same for the RedisLock controller. */
  public EventSource<?, RedisLock> locks(EventSourceContext<RedisLock> context) {
    return locks.watch(context.getPrimaryCache(), this::indexKey);
  }

  /**
   * Why this resource may not use {@code key}, or null: the key is outside its namespace (and every
   * shared prefix), or an elder resource holds it.
   *
   * @param field how messages name the key's field
   */
  public Refusal refusal(HasMetadata resource, String field, String key) {
    String ns = resource.getMetadata().getNamespace();
    Refusal outside = scope.refusal(field, ns, key);
    if (outside != null) {
      return outside;
    }
    return elder(resource, key)
        .map(
            elder ->
                new Refusal(
                    Refusal.KEY_IN_USE,
                    EventReason.KeyInUse,
                    field
                        + " '"
                        + RedisKeys.shown(key)
                        + "' is used by "
                        + elder.getKind()
                        + " "
                        + elder.getMetadata().getNamespace()
                        + "/"
                        + elder.getMetadata().getName()
                        + ", which is older: nothing is written to Redis for this "
                        + resource.getKind()
                        + " while that one exists (delete one of them, or create this one again"
                        + " with another key)"))
        .orElse(null);
  }

  /**
   * The resource is gone: the others that claim its key are woken, and the eldest of them holds it
   * from its next reconcile.
   */
  public void released(LeaderGroup group) {
    released(group, keyOf(group));
  }

  public void released(RedisLock lock) {
    released(lock, keyOf(lock));
  }

  private void released(HasMetadata gone, String key) {
    for (HasMetadata other : claimants(key)) {
      if (!sameResource(other, gone)) {
        (other instanceof LeaderGroup ? groups : locks).wake(ResourceID.fromResource(other));
      }
    }
  }

  /** The eldest other live resource that claims this key, if it is older than this one. */
  Optional<HasMetadata> elder(HasMetadata resource, String key) {
    return claimants(key).stream()
        .filter(r -> !sameResource(r, resource))
        .filter(r -> r.getMetadata().getDeletionTimestamp() == null)
        .min(SENIORITY)
        .filter(elder -> SENIORITY.compare(elder, resource) < 0);
  }

  private List<HasMetadata> claimants(String key) {
    List<HasMetadata> out = new ArrayList<>(groups.byKey(key));
    out.addAll(locks.byKey(key));
    return out;
  }

  /** The key under which a resource is indexed: none when its namespace may not use it. */
  private List<String> indexKey(HasMetadata resource, String specKey) {
    String key = orDefault(resource, specKey);
    String ns = resource.getMetadata().getNamespace();
    return ns != null && RedisKeys.problem("key", key) == null && scope.mayUse(ns, key)
        ? List.of(key)
        : List.of();
  }

  private static boolean sameResource(HasMetadata a, HasMetadata b) {
    return a.getKind().equals(b.getKind())
        && Objects.equals(a.getMetadata().getNamespace(), b.getMetadata().getNamespace())
        && Objects.equals(a.getMetadata().getName(), b.getMetadata().getName());
  }

  private static String orDefault(HasMetadata resource, String specKey) {
    return specKey == null || specKey.isBlank()
        ? resource.getMetadata().getNamespace() + "/" + resource.getMetadata().getName()
        : specKey;
  }

  /** One kind's indexed cache, and the event source that wakes its resources. */
  private static final class Kind<R extends HasMetadata> extends AbstractEventSource<Void, R> {

    private final Function<R, String> specKey;
    private volatile IndexerResourceCache<R> cache;

    Kind(Class<R> type, Function<R, String> specKey) {
      super(Void.class, "key-claims-" + type.getSimpleName().toLowerCase(Locale.ROOT));
      this.specKey = specKey;
    }

    EventSource<?, R> watch(
        IndexerResourceCache<R> cache, BiFunction<HasMetadata, String, List<String>> index) {
      cache.addIndexer(BY_KEY, r -> index.apply(r, specKey.apply(r)));
      this.cache = cache;
      return this;
    }

    List<R> byKey(String key) {
      IndexerResourceCache<R> c = cache;
      return c == null ? List.of() : c.byIndex(BY_KEY, key);
    }

    void wake(ResourceID id) {
      if (isRunning()) {
        getEventHandler().handleEvent(new Event(id));
      }
    }

    @Override
    public Set<Void> getSecondaryResources(R primary) {
      return Set.of();
    }
  }
}
