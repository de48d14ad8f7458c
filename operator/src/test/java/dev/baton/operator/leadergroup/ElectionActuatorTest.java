package dev.baton.operator.leadergroup;

import static dev.baton.operator.leadergroup.ElectionWorld.decide;
import static dev.baton.operator.leadergroup.ElectionWorld.notReady;
import static dev.baton.operator.leadergroup.ElectionWorld.ours;
import static dev.baton.operator.leadergroup.ElectionWorld.pod;
import static dev.baton.operator.leadergroup.ElectionWorld.record;
import static dev.baton.operator.leadergroup.ElectionWorld.seen;
import static dev.baton.operator.leadergroup.ElectionWorld.state;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.ElectionKeys;
import dev.baton.client.HolderRecord;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.lease.LeaseRenewer;
import dev.baton.operator.lease.LeaseStore;
import dev.baton.operator.lease.RedisUnavailableException;
import dev.baton.operator.pods.PodLabeler;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The actuator carries out the plan in order against in-memory Redis and pods. */
class ElectionActuatorTest {

  private final List<String> calls = new ArrayList<>();
  private final LeaseRenewer<ResourceID> renewer = new LeaseRenewer<>(e -> {}, () -> false);
  private final FakeWrites writes = new FakeWrites();
  private final ElectionActuator actuator =
      new ElectionActuator(writes, renewer, Reservations.terms(null));

  private final Pod a = notReady(pod("a", true));
  private final Pod b = pod("b", false);
  private final HolderRecord held = record(a, 7);

  @AfterEach
  void close() {
    renewer.close();
  }

  @Test
  void aFailedDemotionStopsTheStepBeforeAnyAcquire() {
    writes.failOn = "a";
    FakeLeases store =
        new FakeLeases(prefix -> new LeaseStore.Acquisition(true, record(b, 8).encode(), 8, -1));

    var outcome = failover(store);

    assertThat(outcome.failure()).isInstanceOf(KubernetesClientException.class);
    assertThat(calls).containsExactly("follower a");
    assertThat(outcome.demoted()).isEmpty();
    assertThat(outcome.labeledLeader()).isNull();
    assertThat(outcome.holder()).isEqualTo(held);
  }

  @Test
  void aRefusedAcquireLabelsNobodyAsksToDecideAgainAndForgetsTheRenewalSoTheNextLookReadsRedis() {
    FakeLeases store = new FakeLeases(prefix -> new LeaseStore.Acquisition(false, "x", -1, -1));
    ResourceID id = ResourceID.fromResource(ElectionWorld.GROUP);
    renewer.hold(
        id,
        store,
        new ElectionKeys("shop/payments"),
        held.encode(),
        java.time.Duration.ofSeconds(10),
        java.time.Duration.ofSeconds(3));

    var outcome = failover(store);

    assertThat(outcome.retrySoon()).isTrue();
    assertThat(calls).containsExactly("follower a", "acquire");
    assertThat(outcome.demoted()).containsExactly("a");
    assertThat(outcome.labeledLeader()).isNull();
    // The lease is not the record the renewer renewed: no look may rely on its freshness.
    assertThat(renewer.record(id)).isNull();
    assertThat(renewer.fresh(id, held.encode())).isFalse();
  }

  @Test
  void theLeaderIsLabeledWithTheTermItAcquiredAndItsLeaseIsRenewedFromThen() {
    FakeLeases store =
        new FakeLeases(prefix -> new LeaseStore.Acquisition(true, record(b, 8).encode(), 8, -1));

    var outcome = failover(store);

    assertThat(outcome.failure()).isNull();
    assertThat(calls).containsExactly("follower a", "acquire", "leader b term 8");
    assertThat(outcome.holder().term()).isEqualTo(8);
    assertThat(outcome.labeledLeader()).isEqualTo("b");
    assertThat(renewer.record(ResourceID.fromResource(ElectionWorld.GROUP)))
        .isEqualTo(outcome.holder().encode());
  }

  @Test
  void redisFailingMidwayKeepsWhatWasDoneAndSaysWhy() {
    FakeLeases store =
        new FakeLeases(
            prefix -> {
              throw new RedisUnavailableException("Redis did not answer");
            });

    var outcome = failover(store);

    assertThat(outcome.failure()).isInstanceOf(RedisUnavailableException.class);
    assertThat(outcome.demoted()).containsExactly("a");
    assertThat(calls).doesNotContain("leader b term 8");
  }

  private ElectionOutcome failover(FakeLeases store) {
    var seen = seen(List.of(a, b), ours(held), false, state(held, "a", 1000));
    var decision = decide(seen);
    return actuator.carryOut(seen, store, ElectionPlan.plan(decision, seen));
  }

  /** Pod writes as a list of calls; the pod named {@code failOn} answers with a server error. */
  private final class FakeWrites implements ElectionActuator.Writes {
    String failOn;

    @Override
    public void label(Pod pod, PodLabeler.Role role) {
      String name = pod.getMetadata().getName();
      calls.add(role.leader() ? "leader " + name + " term " + role.term() : "follower " + name);
      if (name.equals(failOn)) {
        throw new KubernetesClientException("server error", 500, null);
      }
    }

    @Override
    public void demote(String namespace, String pod, PodLabeler.Role follower) {
      calls.add("follower " + pod);
      if (pod.equals(failOn)) {
        throw new KubernetesClientException("server error", 500, null);
      }
    }

    @Override
    public void clear(Pod pod, String roleLabel) {
      calls.add("clear " + pod.getMetadata().getName());
    }

    @Override
    public void markLeaders(List<Pod> members, String roleLabel, String failoverDelay) {
      calls.add("leaders marked " + failoverDelay);
    }

    @Override
    public void removeSwitchoverRequest(LeaderGroup group) {
      calls.add("switchover removed");
    }
  }

  /** A lease store whose acquire answers as told; nothing else is expected of it here. */
  private final class FakeLeases implements LeaseStore {
    private final Function<String, Acquisition> acquire;

    FakeLeases(Function<String, Acquisition> acquire) {
      this.acquire = acquire;
    }

    @Override
    public Acquisition acquire(
        ElectionKeys keys, String expected, String recordPrefix, long ttlMillis, long reserved) {
      calls.add("acquire");
      return acquire.apply(recordPrefix);
    }

    @Override
    public Observation observe(ElectionKeys keys) {
      throw new AssertionError("the act step reads nothing");
    }

    @Override
    public Observation renew(ElectionKeys keys, String record, long ttlMillis) {
      calls.add("renew");
      return new Observation(true, record, ttlMillis, -1);
    }

    @Override
    public CompletionStage<List<String>> renewAll(List<Renewal> renewals) {
      return CompletableFuture.completedFuture(renewals.stream().map(r -> (String) null).toList());
    }

    @Override
    public long reserve(ElectionKeys keys, long floor, long ceiling) {
      calls.add("reserve");
      return ceiling;
    }

    @Override
    public boolean release(ElectionKeys keys, String record) {
      calls.add("release");
      return true;
    }
  }
}
