package dev.baton.operator.lease;

import dev.baton.client.DaemonThreads;
import dev.baton.client.ElectionKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews every lease this operator holds, batched: on each tick, all leases of one Redis that are
 * due go out in one script call, one round trip, however many groups there are. A lease is renewed
 * early when it would fall due within half its interval anyway, so leases of the same interval soon
 * share their ticks. Reconciles are not woken for renewals; only when a lease is lost, or its Redis
 * stops or starts answering, is the owner told.
 *
 * @param <K> what identifies a lease's owner (a LeaderGroup's ResourceID)
 */
public final class LeaseRenewer<K> implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);
  private static final Duration TICK = Duration.ofMillis(50);

  /** Bounds one script call, so Redis is never blocked long by a single batch. */
  private static final int MAX_BATCH = 500;

  /** What the owner hears about its lease. */
  public enum Outcome {
    /** Redis no longer has our record: someone else holds the lease, or it is gone. */
    LOST,
    /** Redis did not answer: the lease may still be ours; fail static. */
    UNREACHABLE,
    /** Redis answers again after not answering. */
    REACHABLE
  }

  private final Map<K, Held> held = new ConcurrentHashMap<>();
  private final Map<LeaseStore, Boolean> unreachable = new ConcurrentHashMap<>();

  /** One batch in flight per Redis: a slow or dead Redis never delays another's renewals. */
  private final Map<LeaseStore, Boolean> inFlight = new ConcurrentHashMap<>();

  private final ScheduledExecutorService ticker;
  private final Consumer<Event<K>> listener;
  private final BooleanSupplier mayAct;

  /** A change worth a reconcile. */
  public record Event<K>(K owner, Outcome outcome) {}

  private record Held(
      LeaseStore store, LeaseStore.Renewal renewal, long intervalNanos, long renewedAt) {}

  /**
   * @param mayAct whether this replica may renew now; a standby or a replica that lost its role
   *     renews nothing
   */
  public LeaseRenewer(Consumer<Event<K>> listener, BooleanSupplier mayAct) {
    this.listener = listener;
    this.mayAct = mayAct;
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("baton-lease-renewer"));
    ticker.scheduleWithFixedDelay(
        this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Starts renewing a lease just acquired or renewed by its owner. */
  public void hold(
      K owner,
      LeaseStore store,
      ElectionKeys keys,
      String record,
      Duration ttl,
      Duration interval) {
    held.put(
        owner,
        new Held(
            store,
            new LeaseStore.Renewal(keys, record, ttl.toMillis()),
            interval.toNanos(),
            System.nanoTime()));
  }

  public void forget(K owner) {
    held.remove(owner);
  }

  /** The record being renewed for this owner, or null. */
  public String record(K owner) {
    Held h = held.get(owner);
    return h == null ? null : h.renewal().record();
  }

  /** Whether this owner's lease was renewed (or acquired) within its interval. */
  public boolean fresh(K owner, String record) {
    Held h = held.get(owner);
    return h != null
        && h.renewal().record().equals(record)
        && !unreachable.containsKey(h.store())
        && System.nanoTime() - h.renewedAt() < h.intervalNanos();
  }

  private void tick() {
    if (!mayAct.getAsBoolean()) {
      return;
    }
    try {
      long now = System.nanoTime();
      Map<LeaseStore, List<Map.Entry<K, Held>>> byStore = new IdentityHashMap<>();
      for (var e : held.entrySet()) {
        byStore.computeIfAbsent(e.getValue().store(), s -> new ArrayList<>()).add(e);
      }
      byStore.forEach(
          (store, leases) -> {
            boolean anyDue =
                leases.stream()
                    .anyMatch(e -> now - e.getValue().renewedAt() >= e.getValue().intervalNanos());
            if (anyDue && inFlight.putIfAbsent(store, true) == null) {
              List<Map.Entry<K, Held>> batch =
                  leases.stream()
                      .filter(
                          e -> now - e.getValue().renewedAt() >= e.getValue().intervalNanos() / 2)
                      .toList();
              List<CompletionStage<Void>> calls = new ArrayList<>();
              for (int from = 0; from < batch.size(); from += MAX_BATCH) {
                calls.add(
                    renew(store, batch.subList(from, Math.min(batch.size(), from + MAX_BATCH))));
              }
              CompletableFuture.allOf(
                      calls.stream()
                          .map(CompletionStage::toCompletableFuture)
                          .toArray(CompletableFuture[]::new))
                  .whenComplete((ok, error) -> inFlight.remove(store));
            }
          });
    } catch (RuntimeException e) {
      log.warn("lease renewal tick failed", e);
    }
  }

  private CompletionStage<Void> renew(LeaseStore store, List<Map.Entry<K, Held>> leases) {
    long sent = System.nanoTime();
    CompletionStage<List<String>> call;
    try {
      call = store.renewAll(leases.stream().map(e -> e.getValue().renewal()).toList());
    } catch (RuntimeException e) {
      // Failing before the call went out must still end this batch, or the store's in-flight
      // mark would never clear and its leases would never be renewed again.
      call = CompletableFuture.failedFuture(e);
    }
    return call.handle(
        (answers, error) -> {
          if (error != null) {
            if (unreachable.put(store, true) == null) {
              leases.forEach(l -> listener.accept(new Event<>(l.getKey(), Outcome.UNREACHABLE)));
            }
            return null;
          }
          boolean recovered = unreachable.remove(store) != null;
          for (int i = 0; i < leases.size(); i++) {
            K owner = leases.get(i).getKey();
            Held before = leases.get(i).getValue();
            if (answers.get(i) == null) {
              // Counted from when the call was sent: the ttl started no later than that.
              held.computeIfPresent(
                  owner,
                  (k, h) ->
                      h.renewal().equals(before.renewal())
                          ? new Held(h.store(), h.renewal(), h.intervalNanos(), sent)
                          : h);
              if (recovered) {
                listener.accept(new Event<>(owner, Outcome.REACHABLE));
              }
            } else {
              held.remove(owner, before);
              listener.accept(new Event<>(owner, Outcome.LOST));
            }
          }
          return null;
        });
  }

  @Override
  public void close() {
    ticker.shutdownNow();
  }
}
