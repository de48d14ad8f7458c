package dev.baton.operator.replica;

import dev.baton.client.DaemonThreads;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which operator replica is active, through a Kubernetes Lease, with short timings and without
 * comparing clocks across machines (docs/design.md, "The operator's own failover"):
 *
 * <ul>
 *   <li>A standby watches the Lease and takes it over when it has not seen the Lease change for a
 *       whole lease duration by its own monotonic clock, or at once when the holder released it.
 *       The takeover is an update guarded by the resourceVersion it saw, so it fails if the holder
 *       renewed meanwhile, even if that renewal never reached this standby's watch.
 *   <li>The active replica renews every {@link Timing#renewPeriod()} and may act only while its
 *       last successful renewal started less than {@link Timing#renewDeadline()} ago; past that it
 *       stops acting at once and reports the loss.
 *   <li>Closing it (SIGTERM) stops acting first, then releases the Lease, so the standby takes over
 *       without waiting for anything.
 * </ul>
 */
public final class LeaseElection implements ReplicaRole {

  private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

  /**
   * @param lease how long a standby waits, without seeing the Lease change, before taking over
   * @param renewDeadline how long the active replica acts after the start of its last renewal
   * @param renewPeriod how often the active replica renews
   * @param tick how often both look at the Lease (a local check: no request)
   */
  public record Timing(
      Duration lease, Duration renewDeadline, Duration renewPeriod, Duration tick) {

    /** A renew deadline of two thirds of the lease, five renewals a lease, a 50 ms tick. */
    public static Timing of(Duration lease) {
      return new Timing(
          lease, lease.multipliedBy(2).dividedBy(3), lease.dividedBy(5), Duration.ofMillis(50));
    }
  }

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final String identity;
  private final Timing timing;
  private final ScheduledExecutorService timer;
  private SharedIndexInformer<Lease> informer;
  private volatile Lease observed;
  private volatile long observedAtNanos;
  private volatile boolean active;
  private volatile boolean closed;
  private volatile long lastRenewStartNanos;
  private Runnable onActive;
  private Runnable onLost;

  public LeaseElection(
      KubernetesClient client, String namespace, String name, String identity, Timing timing) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.identity = identity;
    this.timing = timing;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("baton-replica-election"));
  }

  @Override
  public void start(Runnable onActive, Runnable onLost) {
    this.onActive = onActive;
    this.onLost = onLost;
    observedAtNanos = System.nanoTime();
    informer =
        client
            .resources(Lease.class)
            .inNamespace(namespace)
            .withName(name)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Lease lease) {
                    observe(lease);
                  }

                  @Override
                  public void onUpdate(Lease before, Lease lease) {
                    observe(lease);
                  }

                  @Override
                  public void onDelete(Lease lease, boolean unknownFinalState) {
                    observe(null);
                  }
                });
    long tick = timing.tick().toMillis();
    timer.scheduleWithFixedDelay(this::tick, 0, tick, TimeUnit.MILLISECONDS);
    log.info(
        "Operator replica {}: standby, watching Lease {}/{} (lease {} ms, renew deadline {}"
            + " ms)",
        identity,
        namespace,
        name,
        timing.lease().toMillis(),
        timing.renewDeadline().toMillis());
  }

  @Override
  public boolean holdsRole() {
    return active;
  }

  @Override
  public boolean mayAct() {
    return active && System.nanoTime() - lastRenewStartNanos < timing.renewDeadline().toNanos();
  }

  @Override
  public String describe() {
    if (mayAct()) {
      return "active (Lease " + namespace + "/" + name + ")";
    }
    Lease l = observed;
    String holder = l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
    return "standby: "
        + (holder == null || holder.isEmpty() ? "nobody" : holder)
        + " holds the Lease "
        + namespace
        + "/"
        + name;
  }

  /** A change of the Lease restarts the standby's wait; a resync repeating it does not. */
  private void observe(Lease lease) {
    Lease before = observed;
    if (lease == null || before == null || !Objects.equals(record(lease), record(before))) {
      observedAtNanos = System.nanoTime();
    }
    observed = lease;
  }

  private static String record(Lease l) {
    var s = l.getSpec();
    return s == null
        ? ""
        : s.getHolderIdentity() + "|" + s.getRenewTime() + "|" + s.getLeaseTransitions();
  }

  private void tick() {
    try {
      if (closed) {
        return;
      }
      long now = System.nanoTime();
      if (active) {
        if (now - lastRenewStartNanos >= timing.renewDeadline().toNanos()) {
          lose("no renewal succeeded within " + timing.renewDeadline().toMillis() + " ms");
        } else if (now - lastRenewStartNanos >= timing.renewPeriod().toNanos()) {
          renew();
        }
        return;
      }
      Lease lease = observed;
      String holder =
          lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
      boolean free = holder == null || holder.isEmpty();
      boolean expired = now - observedAtNanos > timing.lease().toNanos();
      if (free || identity.equals(holder) || expired) {
        takeOver(lease);
      }
    } catch (RuntimeException e) {
      log.warn("Operator replica {}: election tick failed: {}", identity, e.toString());
    }
  }

  private void takeOver(Lease seen) {
    long start = System.nanoTime();
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    try {
      Lease written;
      if (seen == null) {
        written =
            client
                .resources(Lease.class)
                .inNamespace(namespace)
                .resource(
                    new LeaseBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(namespace)
                        .endMetadata()
                        .withNewSpec()
                        .withHolderIdentity(identity)
                        .withLeaseDurationSeconds(leaseSeconds())
                        .withAcquireTime(now)
                        .withRenewTime(now)
                        .withLeaseTransitions(0)
                        .endSpec()
                        .build())
                .create();
      } else {
        int transitions =
            seen.getSpec().getLeaseTransitions() == null ? 0 : seen.getSpec().getLeaseTransitions();
        Lease next =
            new LeaseBuilder(seen)
                .editSpec()
                .withHolderIdentity(identity)
                .withLeaseDurationSeconds(leaseSeconds())
                .withAcquireTime(now)
                .withRenewTime(now)
                .withLeaseTransitions(transitions + 1)
                .endSpec()
                .build();
        written = client.resources(Lease.class).inNamespace(namespace).resource(next).update();
      }
      lastRenewStartNanos = start;
      observed = written;
      active = true;
      log.info(
          "Operator replica {}: active (took the Lease from {})",
          identity,
          seen == null ? "nobody" : seen.getSpec().getHolderIdentity());
      onActive.run();
    } catch (KubernetesClientException e) {
      // 409: the Lease changed since we saw it (a renewal our watch has not shown yet): look again
      // and start the wait over from now.
      if (e.getCode() == 409 || e.getCode() == 404) {
        refresh();
      } else {
        log.info("Operator replica {}: could not take the Lease: {}", identity, e.getMessage());
      }
    }
  }

  private void renew() {
    long start = System.nanoTime();
    Lease seen = observed;
    try {
      Lease next =
          new LeaseBuilder(seen)
              .editSpec()
              .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
              .endSpec()
              .build();
      observed = client.resources(Lease.class).inNamespace(namespace).resource(next).update();
      lastRenewStartNanos = start;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        Lease now = client.resources(Lease.class).inNamespace(namespace).withName(name).get();
        if (now == null || !identity.equals(now.getSpec().getHolderIdentity())) {
          lose(
              "the Lease is held by "
                  + (now == null ? "nobody" : now.getSpec().getHolderIdentity())
                  + " now");
          return;
        }
        observed = now;
      }
      log.debug("Operator replica {}: renewal failed, trying again: {}", identity, e.getMessage());
    }
  }

  private void refresh() {
    try {
      observed = client.resources(Lease.class).inNamespace(namespace).withName(name).get();
    } catch (KubernetesClientException e) {
      log.debug("Operator replica {}: cannot read the Lease: {}", identity, e.getMessage());
    }
    observedAtNanos = System.nanoTime();
  }

  private void lose(String why) {
    active = false;
    log.warn("Operator replica {}: no longer active: {}; it stops acting", identity, why);
    onLost.run();
  }

  private int leaseSeconds() {
    return (int) Math.max(1, (timing.lease().toMillis() + 999) / 1000);
  }

  @Override
  public void close() {
    closed = true;
    boolean wasActive = active;
    active = false;
    timer.shutdownNow();
    if (informer != null) {
      informer.close();
    }
    if (wasActive && observed != null) {
      try {
        Lease released =
            new LeaseBuilder(observed)
                .editSpec()
                .withHolderIdentity("")
                .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
                .endSpec()
                .build();
        client.resources(Lease.class).inNamespace(namespace).resource(released).update();
        log.info("Operator replica {}: released the Lease for a standby to take at once", identity);
      } catch (KubernetesClientException e) {
        log.info(
            "Operator replica {}: could not release the Lease ({}); a standby takes it when"
                + " it expires",
            identity,
            e.getMessage());
      }
    }
  }
}
