package dev.baton.bench.failover;

import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Report;
import dev.baton.operator.metrics.FailoverTrace;
import dev.baton.operator.metrics.FailoverTrace.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * One failover as the operator's {@link FailoverTrace} saw it: from the first event of the old
 * leader's pod after the change to the new leader's label write answered, each step's time after
 * that event. Times in milliseconds; NaN for a step the failover did not take.
 */
record FailoverPath(
    List<FailoverTrace.Stamp> stamps,
    long eventNanos,
    double eventAfterRequest,
    double reconcileStarted,
    double demoted,
    double promoted,
    double seenByWatcher,
    int labelAttempts,
    int leaseReads,
    int statusWritesBeforeLabels) {

  /**
   * @param all every stamp of the group since the change was requested, in the order taken
   * @param oldLeader the pod that led before
   * @param requestNanos when the change was sent to the API server
   * @param seenNanos when a watcher saw another pod labeled leader, or -1
   * @return null when the trace holds no event of the old leader's pod or no promotion after it
   */
  static FailoverPath of(
      List<FailoverTrace.Stamp> all, String oldLeader, long requestNanos, long seenNanos) {
    long event = -1;
    List<FailoverTrace.Stamp> path = new ArrayList<>();
    for (FailoverTrace.Stamp s : all) {
      if (event < 0 && s.step() == Step.POD_EVENT && s.detail().equals(oldLeader)) {
        event = s.nanos();
      }
      if (event >= 0) {
        path.add(s);
      }
    }
    if (event < 0) {
      return null;
    }
    double started = Double.NaN;
    double demoted = Double.NaN;
    double promoted = Double.NaN;
    int attempts = 0;
    int leaseReads = 0;
    int statusBefore = 0;
    List<FailoverTrace.Stamp> kept = new ArrayList<>();
    for (FailoverTrace.Stamp s : path) {
      double at = ms(s.nanos() - event);
      kept.add(s);
      if (!Double.isNaN(promoted)) {
        // The rest of that reconcile, for the printed trace.
        if (s.step() == Step.RECONCILE_ENDED) {
          break;
        }
      } else if (s.step() == Step.RECONCILE_STARTED && Double.isNaN(started)) {
        started = at;
      } else if (s.step() == Step.LABEL_SENT) {
        attempts++;
      } else if (s.step() == Step.LEASE_READ_SENT) {
        leaseReads++;
      } else if (s.step() == Step.STATUS_SENT) {
        statusBefore++;
      } else if (s.step() == Step.LABEL_ANSWERED) {
        if (s.detail().equals(oldLeader + " follower") && Double.isNaN(demoted)) {
          demoted = at;
        } else if (s.detail().endsWith(" leader") && !s.detail().startsWith(oldLeader + " ")) {
          promoted = at;
        }
      }
    }
    if (Double.isNaN(promoted)) {
      return null;
    }
    return new FailoverPath(
        List.copyOf(kept),
        event,
        ms(event - requestNanos),
        started,
        demoted,
        promoted,
        seenNanos < 0 ? Double.NaN : ms(seenNanos - requestNanos),
        attempts,
        leaseReads,
        statusBefore);
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  /** p50 / p99 of one step over some failovers, "–" when none has it. */
  static String both(List<FailoverPath> paths, ToDoubleFunction<FailoverPath> f) {
    List<Double> v = paths.stream().map(f::applyAsDouble).filter(d -> !Double.isNaN(d)).toList();
    if (v.isEmpty()) {
      return "–";
    }
    Percentiles p = Percentiles.of(v);
    return Report.format(p.p50()) + " / " + Report.format(p.p99());
  }

  static int max(List<FailoverPath> paths, ToDoubleFunction<FailoverPath> f) {
    return (int) paths.stream().mapToDouble(f).max().orElse(0);
  }
}
