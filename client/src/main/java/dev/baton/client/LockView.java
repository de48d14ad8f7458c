package dev.baton.client;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A lock as seen on all its instances at one moment (one instance for a single Redis). A value is
 * the holder only when a majority of instances hold it.
 *
 * @param instances the answers, in the configured order
 * @param quorum how many instances must agree: a majority
 */
public record LockView(List<InstanceView> instances, int quorum) {

  public LockView {
    instances = List.copyOf(instances);
  }

  public int reachable() {
    return (int) instances.stream().filter(InstanceView::reachable).count();
  }

  /** Enough instances answered to decide anything. */
  public boolean quorumReachable() {
    return reachable() >= quorum;
  }

  /** The value held on a majority of instances, or null. */
  public String holder() {
    String lead = mostHeld();
    return lead != null && count(lead) >= quorum ? lead : null;
  }

  /** The value held on the most instances (ties: the smallest), or null when all are free. */
  public String mostHeld() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (InstanceView i : instances) {
      if (i.reachable() && i.value() != null) {
        counts.merge(i.value(), 1, Integer::sum);
      }
    }
    return counts.entrySet().stream()
        .max(
            Comparator.<Map.Entry<String, Integer>>comparingInt(Map.Entry::getValue)
                .thenComparing(Map.Entry::getKey, Comparator.reverseOrder()))
        .map(Map.Entry::getKey)
        .orElse(null);
  }

  /** Every distinct value found, in instance order. */
  public Set<String> values() {
    Set<String> out = new LinkedHashSet<>();
    instances.stream()
        .filter(i -> i.reachable() && i.value() != null)
        .forEach(i -> out.add(i.value()));
    return out;
  }

  public int count(String value) {
    return (int) instances.stream().filter(i -> i.holds(value)).count();
  }

  /**
   * How long the holder keeps a majority, by the instances' clocks: the quorum-th longest remaining
   * time among the instances that hold it; -1 without expiry, -2 when there is no holder.
   */
  public long pttlMillis() {
    String holder = holder();
    if (holder == null) {
      return -2;
    }
    List<Long> ttls =
        instances.stream()
            .filter(i -> i.holds(holder))
            .map(i -> i.pttlMillis() == -1 ? Long.MAX_VALUE : i.pttlMillis())
            .sorted(Comparator.reverseOrder())
            .toList();
    long t = ttls.get(quorum - 1);
    return t == Long.MAX_VALUE ? -1 : t;
  }

  /**
   * The holder's fencing token: the highest counter among the instances that hold it (each was
   * raised to the token when the lock was taken). Without a holder, 0.
   */
  public long holderToken() {
    return tokenOf(holder());
  }

  /** The token of the hold with {@code value}: the highest counter where it is held, else 0. */
  public long tokenOf(String value) {
    return instances.stream()
        .filter(i -> i.holds(value))
        .mapToLong(InstanceView::counter)
        .max()
        .orElse(0);
  }

  /** The highest token counter among the instances that answered. */
  public long maxCounter() {
    return instances.stream()
        .filter(InstanceView::reachable)
        .mapToLong(InstanceView::counter)
        .max()
        .orElse(0);
  }

  /**
   * Whether an acquire failed for want of a token reservation rather than because the lock was
   * held: enough instances refused for that reason that no majority could be taken.
   */
  public boolean waitsForReservation() {
    long refused = instances.stream().filter(InstanceView::unreserved).count();
    return refused > 0 && instances.size() - refused < quorum;
  }

  /** The instances that did not answer, with why, for messages. */
  public List<String> unreachableDescriptions() {
    return instances.stream()
        .filter(i -> !i.reachable())
        .map(i -> i.name() + " (" + i.error() + ")")
        .toList();
  }
}
