package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.DecisionDriver.CONFIG;
import static dev.baton.agent.leadership.DecisionDriver.KEY;
import static dev.baton.agent.leadership.DecisionDriver.MS;
import static dev.baton.agent.leadership.DecisionDriver.TTL;
import static dev.baton.agent.leadership.DecisionDriver.pod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The key's calls: which is due when, the names they carry, the watch a take names as stale, and
 * the lost takes remembered.
 */
class KeyStateTest {

  private static final long NOW = 1_000_000 * MS;

  private final DecisionDriver d = new DecisionDriver();

  @Test
  void theFourNewestLostTakesAreRememberedAndOlderOnesForgotten() {
    KeyState k = KeyState.initial(NOW);
    for (int i = 0; i < 4; i++) {
      k = k.lostTake(new HoldCall.Take(KEY, "h" + i, 3, ""), NOW + i);
    }
    assertThat(k.lostWith("h0")).isNotNull();
    k = k.lostTake(new HoldCall.Take(KEY, "h4", 3, ""), NOW + 4);
    assertThat(k.lost()).hasSize(4);
    assertThat(k.lostWith("h0")).isNull();
    assertThat(k.lostWith("h1")).isEqualTo(new KeyState.LostTake(KEY, "h1", 3, NOW + 1));
  }

  @Test
  void aWatchedValueIsNamedStaleOnceUnchangedForAWholeTtl() {
    KeyState k = KeyState.initial(NOW).withWatched(new KeyState.Watched(KEY, "v", NOW));
    assertThat(take(k, NOW + TTL - 1).expected()).isEmpty();
    assertThat(take(k, NOW + TTL).expected()).isEqualTo("v");
    KeyState other = KeyState.initial(NOW).withWatched(new KeyState.Watched("other", "v", NOW));
    assertThat(take(other, NOW + TTL).expected()).as("another key's value").isEmpty();
  }

  private static HoldCall.Take take(KeyState k, long now) {
    Next<KeyState> n = k.work(CONFIG, KEY, "g", 3, false, null, now);
    assertThat(n.value().callPending()).isTrue();
    return (HoldCall.Take) n.effects().get(0);
  }

  @Test
  void everyTakeAndEveryRenewalThatMayTakeTheKeyAgainCarriesANameOfItsOwn() {
    List<String> names = new ArrayList<>();
    names.add(d.promoted(3).hold());
    d.answer(d.last(HoldCall.Take.class), 1, "");
    for (int i = 0; i < 3; i++) {
      d.now += 500 * MS;
      d.tick();
      HoldCall.Renew renew = d.last(HoldCall.Renew.class);
      names.add(renew.retakeAs());
      d.answer(renew, 1, "");
    }
    assertThat(names).doesNotContainNull();
    assertThat(new HashSet<>(names)).hasSameSizeAs(names);
  }

  @Test
  void aFollowerAsksForRedisFactsOncePerPeriodBesideItsReadsOfTheHolder() {
    d.feed(new Input.PodSeen(pod(BatonNames.FOLLOWER, null, null)));
    d.answer(d.last(HoldCall.ReadHolder.class), 1, "");
    List<Effect> effects = new ArrayList<>(d.effects);
    effects.addAll(d.runUntil(d.now + 12_000 * MS, 1));
    assertThat(effects).filteredOn(e -> e instanceof HoldCall.ReadFacts).hasSize(3);
    assertThat(effects).filteredOn(e -> e instanceof HoldCall.ReadHolder).hasSize(5);
  }

  @Test
  void aPodInNoGroupCallsNothing() {
    d.feed(new Input.PodSeen(new PodFacts(true, "u", Map.of(), Map.of(), true, null)));
    assertThat(d.effects).isEmpty();
    assertThat(d.runUntil(d.now + 6_000 * MS, 1)).isEmpty();
  }

  @Test
  void aHolderAsksForRedisFactsOncePerPeriodBesideItsRenewals() {
    d.leading(3); // facts asked for as it was promoted
    List<Effect> effects = d.runUntil(d.now + 12_000 * MS, 1);
    assertThat(effects).filteredOn(e -> e instanceof HoldCall.ReadFacts).hasSize(2);
    assertThat(effects).filteredOn(e -> e instanceof HoldCall.Renew).hasSize(24);
  }

  @Test
  void aChangeToldWhileAReadIsOutIsReadAgainTheMomentThatReadAnswers() {
    d.feed(new Input.PodSeen(pod(BatonNames.FOLLOWER, null, null)));
    HoldCall.ReadHolder out = d.last(HoldCall.ReadHolder.class);
    long sentAt = d.now;
    d.now += MS;
    d.feed(new Input.KeyMessage(KEY));
    assertThat(d.effects).noneMatch(e -> e instanceof HoldCall.ReadHolder);
    d.answer(out, sentAt, DecisionDriver.answer(1, ""));
    assertThat(d.last(HoldCall.ReadHolder.class)).isEqualTo(new HoldCall.ReadHolder(KEY));
  }
}
