package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.client.HolderRecord;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.lease.LeaseRenewer;
import dev.baton.operator.lease.LeaseStore;
import dev.baton.operator.metrics.FailoverTrace;
import dev.baton.operator.pods.PodLabeler;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.ArrayList;
import java.util.List;

/**
 * The act step of a LeaderGroup reconcile: carries out the effects {@link ElectionPlan} planned, in
 * their order, and returns what happened. It decides nothing but two things the plan cannot know
 * beforehand, each from the result of an earlier effect: the term and since of the leader's label
 * come from the lease kept or acquired in this step, and terms are reserved ahead only when the
 * acquired term leaves less than half a block (docs/design.md, "The flow").
 */
final class ElectionActuator {

  private final Writes writes;
  private final LeaseRenewer<ResourceID> renewer;
  private final Reservations<LeaderGroup, LeaderGroupStatus> reservations;

  /**
   * The act step's writes to pods and to the group ({@link GroupWrites} against the API server).
   * Each throws when the write fails, which stops the step.
   */
  interface Writes {
    /** Gives the pod the marks of its role, when it does not carry them already. */
    void label(Pod pod, PodLabeler.Role role);

    /**
     * Demotes a pod by name, whatever the cache says about it, in one write no resourceVersion
     * guards ({@link PodLabeler#demote}).
     */
    void demote(String namespace, String pod, PodLabeler.Role follower);

    /** Removes every mark of the group from a pod that left it. */
    void clear(Pod pod, String roleLabel);

    /** Rewrites the failover-delay annotation of the members labeled leader, nothing else. */
    void markLeaders(List<Pod> members, String roleLabel, String failoverDelay);

    void removeSwitchoverRequest(LeaderGroup group);
  }

  ElectionActuator(
      Writes writes,
      LeaseRenewer<ResourceID> renewer,
      Reservations<LeaderGroup, LeaderGroupStatus> reservations) {
    this.writes = writes;
    this.renewer = renewer;
    this.reservations = reservations;
  }

  /**
   * Paused: leadership is frozen (nobody elected, no label touched); the leader's lease is held as
   * {@link ElectionPlan#paused} decided, and a renewal Redis refuses (the lease lost to someone
   * else) leaves no leader. The leaders' failover-delay annotation says "paused" first, so that
   * their agents stop anticipating a demotion the pause called off.
   *
   * @return the leader whose lease is kept, or null when there is none
   * @throws dev.baton.operator.lease.RedisUnavailableException when Redis does not answer
   */
  String holdWhilePaused(
      LeaderGroup group,
      GroupSettings settings,
      HolderRecord holder,
      PodView pods,
      LeaseStore store,
      ElectionPlan.PausedHold hold) {
    writes.markLeaders(
        pods.membership().members(), settings.roleLabel(), settings.failoverDelayAnnotation());
    ResourceID id = ResourceID.fromResource(group);
    if (hold == ElectionPlan.PausedHold.NONE) {
      renewer.forget(id);
      return null;
    }
    if (hold == ElectionPlan.PausedHold.FRESH) {
      return holder.pod();
    }
    String record = holder.encode();
    if (!store.renew(settings.keys(), record, settings.ttl().toMillis()).renewed()) {
      renewer.forget(id);
      return null;
    }
    renewer.hold(id, store, settings.keys(), record, settings.ttl(), settings.renewInterval());
    return holder.pod();
  }

  /** Carries out the effects in order; the first that fails or is refused stops the step. */
  ElectionOutcome carryOut(Observation seen, LeaseStore store, List<ElectionPlan.Effect> effects) {
    Step step = new Step(seen, store);
    try {
      for (ElectionPlan.Effect effect : effects) {
        if (!step.apply(effect)) {
          return step.outcome(true, null);
        }
      }
    } catch (RuntimeException e) {
      return step.outcome(false, e);
    }
    return step.outcome(false, null);
  }

  /** One run of the effects: what they did so far. */
  private final class Step {
    private final Observation seen;
    private final ResourceID id;
    private final GroupSettings settings;
    private final LeaseStore store;
    private final List<String> demoted = new ArrayList<>();
    private HolderRecord holder;
    private String raw;
    private String since;
    private String labeledLeader;
    private long reserved;

    Step(Observation seen, LeaseStore store) {
      this.seen = seen;
      this.id = ResourceID.fromResource(seen.group());
      this.settings = seen.settings();
      this.store = store;
      this.holder = seen.state().holder();
      this.since = seen.state().leaderSince();
    }

    /** Returns false when Redis refused: the lease changed under us. */
    boolean apply(ElectionPlan.Effect effect) {
      long ttl = settings.ttl().toMillis();
      if (effect instanceof ElectionPlan.Effect.ClearStray c) {
        writes.clear(c.pod(), settings.roleLabel());
      } else if (effect instanceof ElectionPlan.Effect.Demote d) {
        writes.demote(seen.namespace(), d.pod().getMetadata().getName(), follower());
        demoted.add(d.pod().getMetadata().getName());
      } else if (effect instanceof ElectionPlan.Effect.DemoteByName d) {
        if (d.write()) {
          writes.demote(seen.namespace(), d.pod(), follower());
        }
        demoted.add(d.pod());
      } else if (effect instanceof ElectionPlan.Effect.KeepLease k) {
        if (k.renew() && !store.renew(settings.keys(), k.raw(), ttl).renewed()) {
          return false;
        }
        held(k.record(), k.raw(), k.since());
      } else if (effect instanceof ElectionPlan.Effect.AcquireLease a) {
        LeaseStore.Acquisition got =
            Reservations.acquireReserving(
                () -> acquire(a),
                LeaseStore.Acquisition::unreserved,
                refused -> reserve(refused.unreservedCounter()));
        if (!got.acquired()) {
          // The lease is not the record the renewer renews: the next look reads Redis.
          renewer.forget(id);
          return false;
        }
        held(HolderRecord.parse(got.holder()).orElseThrow(), got.holder(), a.since());
      } else if (effect instanceof ElectionPlan.Effect.HoldRenewal) {
        renewer.hold(id, store, settings.keys(), raw, settings.ttl(), settings.renewInterval());
      } else if (effect instanceof ElectionPlan.Effect.ForgetRenewal) {
        renewer.forget(id);
      } else if (effect instanceof ElectionPlan.Effect.DropLease d) {
        if (d.release() != null) {
          store.release(settings.keys(), d.release());
        }
        holder = null;
        since = null;
      } else if (effect instanceof ElectionPlan.Effect.LabelLeader l) {
        writes.label(l.pod(), role(true, holder.term(), since));
        labeledLeader = l.pod().getMetadata().getName();
      } else if (effect instanceof ElectionPlan.Effect.LabelFollower l) {
        writes.label(l.pod(), follower());
      } else if (effect instanceof ElectionPlan.Effect.RemoveSwitchoverRequest) {
        writes.removeSwitchoverRequest(seen.group());
      } else if (effect instanceof ElectionPlan.Effect.ReserveTermsAhead) {
        long maxTerm = Math.max(seen.state().maxTerm(), holder.term());
        if (Reservations.runningLow(reserved(), maxTerm, Reservations.TERM_BLOCK)) {
          reserve(maxTerm);
        }
      }
      return true;
    }

    private LeaseStore.Acquisition acquire(ElectionPlan.Effect.AcquireLease a) {
      trace(FailoverTrace.Step.LEASE_ACQUIRE_SENT);
      LeaseStore.Acquisition got =
          store.acquire(
              settings.keys(),
              a.expected(),
              a.prefix(),
              settings.ttl().toMillis(),
              reservations.known(seen.group(), reserved()));
      trace(FailoverTrace.Step.LEASE_ACQUIRE_ANSWERED);
      return got;
    }

    private void trace(FailoverTrace.Step step) {
      FailoverTrace.stamp(step, seen.namespace(), seen.group().getMetadata().getName(), "");
    }

    private void reserve(long counter) {
      long maxTerm = Math.max(seen.state().maxTerm(), holder == null ? 0 : holder.term());
      long known = Math.max(reserved(), maxTerm);
      for (Pod p : seen.pods().membership().members()) {
        known = Math.max(known, Membership.term(p));
      }
      reservations.reserve(
          seen.group(),
          known,
          counter,
          Reservations.Block.NONE,
          (floor, ceiling) -> store.reserve(settings.keys(), floor, ceiling),
          r -> reserved = Math.max(reserved, r.ceiling()));
    }

    private long reserved() {
      return Math.max(seen.state().reserved(), reserved);
    }

    private void held(HolderRecord record, String raw, String since) {
      this.holder = record;
      this.raw = raw;
      this.since = since;
    }

    private PodLabeler.Role follower() {
      return role(false, 0, null);
    }

    private PodLabeler.Role role(boolean leader, long term, String since) {
      return new PodLabeler.Role(
          settings.roleLabel(),
          seen.group().getMetadata().getName(),
          leader,
          term,
          since,
          settings.protectLeader(),
          settings.failoverDelayAnnotation());
    }

    ElectionOutcome outcome(boolean retrySoon, RuntimeException failure) {
      return new ElectionOutcome(
          holder, since, List.copyOf(demoted), labeledLeader, reserved, retrySoon, failure);
    }
  }
}
