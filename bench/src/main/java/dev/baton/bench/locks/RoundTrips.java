package dev.baton.bench.locks;

import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.ElectionKeys;
import dev.baton.client.HolderRecord;
import dev.baton.client.LockLease;
import dev.baton.operator.lease.LeaseStore;
import dev.baton.operator.lease.RedisLeaseStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Counts what Redis sees per operation, one thread, operations one after the other: round trips
 * (read events on the server's client sockets) and commands executed (those inside scripts
 * included). With several instances the requests of one step go out in parallel, so the sequential
 * round trips are the largest per-instance count and the commands are summed.
 */
final class RoundTrips {

  /** Round trips and commands per operation. */
  record Count(String operation, double roundTrips, double commands, double scriptCalls) {}

  private final RedisFleet fleet;
  private final int n;
  private final List<Count> counts = new ArrayList<>();

  RoundTrips(RedisFleet fleet, int n) {
    this.fleet = fleet;
    this.n = n;
  }

  List<Count> all() {
    RedissonClient first = fleet.clients().get(0);
    count(
        "Calibration: Redisson GET (expect 1 round trip)",
        1,
        i -> first.getBucket("calibration", StringCodec.INSTANCE).get());
    for (LockSubject s : LockSubject.values()) {
      LockSubject.LockOp op = s.open(fleet.clients(), "rt/" + s.name().toLowerCase());
      count(s.description() + ": acquire + release", s.instances(), i -> op.acquireRelease());
    }
    leaseSteps(first);
    lockSteps(first);
    return counts;
  }

  /** The operator's three lease scripts one by one, on n different elections. */
  private void leaseSteps(RedissonClient redisson) {
    RedisLeaseStore store =
        new RedisLeaseStore(redisson, "bench", RedisLeaseStore.ScriptTimer.NONE);
    String prefix = HolderRecord.prefix("bench", "bench", "pod", "uid");
    for (int i = 0; i < n; i++) {
      store.reserve(new ElectionKeys("rt/lease-warm-" + i), 0, LockSubject.RESERVATION);
      store.reserve(new ElectionKeys("rt/lease-" + i), 0, LockSubject.RESERVATION);
    }
    warm(
        i -> {
          ElectionKeys k = new ElectionKeys("rt/lease-warm-" + i);
          LeaseStore.Acquisition a = store.acquire(k, null, prefix, 30_000);
          store.renew(k, a.holder(), 30_000);
          store.release(k, a.holder());
        });
    String[] records = new String[n];
    count(
        "Baton lease: acquire (lease-acquire.lua)",
        1,
        i ->
            records[i] =
                store.acquire(new ElectionKeys("rt/lease-" + i), null, prefix, 30_000).holder(),
        false);
    count(
        "Baton lease: renew (lease-renew.lua)",
        1,
        i -> store.renew(new ElectionKeys("rt/lease-" + i), records[i], 30_000),
        false);
    count(
        "Baton lease: release (lease-release.lua)",
        1,
        i -> store.release(new ElectionKeys("rt/lease-" + i), records[i]),
        false);
  }

  /** The application lock's acquire, renew and release one by one, on n different locks. */
  private void lockSteps(RedissonClient redisson) {
    BatonLocks locks = BatonLocks.singleRedis(redisson, LockSubject.OWNER);
    for (int i = 0; i < n; i++) {
      LockSubject.reserveLock(List.of(redisson), "rt/lock-warm-" + i);
      LockSubject.reserveLock(List.of(redisson), "rt/lock-" + i);
    }
    warm(
        i -> {
          LockLease l = locks.lock("rt/lock-warm-" + i, LockSubject.TTL).tryAcquire().orElseThrow();
          l.renew();
          l.release();
        });
    BatonLock[] lock = new BatonLock[n];
    LockLease[] lease = new LockLease[n];
    for (int i = 0; i < n; i++) {
      lock[i] = locks.lock("rt/lock-" + i, LockSubject.TTL);
    }
    count(
        "Baton lock: acquire (lock-acquire.lua)",
        1,
        i -> lease[i] = lock[i].tryAcquire().orElseThrow(),
        false);
    count("Baton lock: renew (lock-renew.lua)", 1, i -> lease[i].renew(), false);
    count("Baton lock: release (lock-release.lua)", 1, i -> lease[i].release(), false);
  }

  private void count(String name, int instances, IntConsumer op) {
    count(name, instances, op, true);
  }

  private void count(String name, int instances, IntConsumer op, boolean warmUp) {
    if (warmUp) {
      warm(op);
    }
    List<RedisInfo> overhead = delta(fleet.info());
    List<RedisInfo> before = fleet.info();
    for (int i = 0; i < n; i++) {
      op.accept(i);
    }
    List<RedisInfo> after = fleet.info();
    double roundTrips = 0;
    double commands = 0;
    double scripts = 0;
    for (int k = 0; k < instances; k++) {
      RedisInfo d = after.get(k).minus(before.get(k)).minus(overhead.get(k));
      roundTrips = Math.max(roundTrips, (double) d.readEvents() / n);
      commands += (double) d.commands() / n;
      scripts += (double) d.scriptCalls() / n;
    }
    counts.add(new Count(name, roundTrips, commands, scripts));
  }

  /** Runs the operation enough to load scripts and open connections before counting. */
  private void warm(IntConsumer op) {
    for (int i = 0; i < Math.min(n, 200); i++) {
      op.accept(i);
    }
  }

  /** What reading INFO itself adds between two snapshots taken back to back. */
  private List<RedisInfo> delta(List<RedisInfo> first) {
    List<RedisInfo> second = fleet.info();
    List<RedisInfo> out = new ArrayList<>();
    for (int k = 0; k < first.size(); k++) {
      out.add(second.get(k).minus(first.get(k)));
    }
    return out;
  }
}
