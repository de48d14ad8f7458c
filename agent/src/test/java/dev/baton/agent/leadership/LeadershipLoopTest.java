package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The leadership loop itself, with a clock and sources of the test's own: what each input does to
 * the gates, the calls sent, the answer published and what Redis is said to be; and that a gate
 * closes before its hold's let-go is sent.
 */
class LeadershipLoopTest {

  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long TTL = 2000 * MS;
  private static final String KEY = HoldKey.name("shop", "g");

  private final AtomicLong clock = new AtomicLong(1_000_000 * MS);

  /** How far Redis's clock is from this test's, in ms. */
  private long redisAhead = 7_000;

  private final List<String> told = new ArrayList<>();
  private final List<HoldCall> sent = new ArrayList<>();
  private final Exclusives gates = new Exclusives();
  private final ViewBoard board = new ViewBoard(AgentView.initial("p"), clock::get);
  private final RedisHealth health = new RedisHealth(TTL);
  private final LeadershipLoop loop;

  LeadershipLoopTest() {
    gates.add(telling(told::add));
    loop =
        new LeadershipLoop(
            new LeadershipConfig(
                "shop",
                "p",
                "baton.dev/role",
                TTL,
                100 * MS,
                TTL / 4,
                20 * MS,
                TTL,
                5000 * MS,
                true,
                "t"),
            gates,
            board,
            health,
            (call, from) -> {
              sent.add(call);
              told.add("sent " + call.getClass().getSimpleName());
            },
            clock::get);
  }

  /**
   * A gate that tells {@code events} of each opening, "opened <term>", and closing, "closed:
   * <reason>".
   */
  private static Exclusive telling(Consumer<String> events) {
    return new Exclusive() {
      @Override
      public void opened(long term) {
        events.accept("opened " + term);
      }

      @Override
      public void closed(String reason) {
        events.accept("closed: " + reason);
      }
    };
  }

  private long now() {
    return clock.get();
  }

  /** The pod seen with these labels and annotations, ready, at {@code ip} (or none). */
  private void podSeen(String role, Map<String, String> annotations, String ip) {
    loop.feed(new Input.PodSeen(DecisionDriver.podWith(role, annotations, ip)));
  }

  private void leaderSeen(long term) {
    podSeen(
        BatonNames.LEADER,
        Map.of(BatonNames.GROUP_ANNOTATION, "g", BatonNames.TERM_ANNOTATION, "" + term),
        null);
    // Seen before it was believed leader: a follower's read of who holds the key, answered.
    assertThat(sent).contains(new HoldCall.ReadHolder(KEY));
    answerLast(0, 1);
    loop.feed(new Input.Belief(true, term, now() + TTL - 100 * MS));
  }

  private HoldKey.Answer answer(int code, String found, long redisMillis) {
    return new HoldKey.Answer(code, found, "run.repl", redisMillis);
  }

  /** The last call sent, answered {@code code} after {@code ms}, Redis's clock read halfway. */
  private void answerLast(int code, long ms) {
    long sentAt = now();
    long redisMillis = (sentAt + ms * MS / 2) / MS + redisAhead;
    clock.addAndGet(ms * MS);
    HoldCall last =
        sent.stream().filter(c -> !(c instanceof HoldCall.ReadFacts)).reduce((a, b) -> b).get();
    loop.feed(new Input.Answered(last, sentAt, now(), answer(code, "", redisMillis)));
  }

  @Test
  void aTakeAnsweredAtOnceOpensTheGatesUntilItsDeadlineAndTheAnswerSaysLeader() {
    leaderSeen(3);
    assertThat(sent).last().isInstanceOf(HoldCall.Take.class);
    HoldCall.Take take = (HoldCall.Take) sent.get(sent.size() - 1);
    assertThat(take.expected()).as("nothing watched yet").isEmpty();
    assertThat(take.key()).isEqualTo(KEY);
    assertThat(take.term()).isEqualTo(3);
    answerLast(1, 2);

    assertThat(told).containsSubsequence("sent Take", "opened 3");
    assertThat(loop.state().gates().open()).isTrue();
    // The deadline: the take's sending plus the ttl less the margin, sooner than the belief's.
    assertThat(loop.state().gates().untilNanos()).isEqualTo(now() - 2 * MS + TTL - 100 * MS);
    assertThat(board.now().leader()).isTrue();
    assertThat(board.now().term()).isEqualTo(3);
  }

  @Test
  void aRevocationClosesTheGatesBeforeTheLetGoIsSent() {
    leaderSeen(3);
    answerLast(1, 1);
    told.clear();
    loop.feed(new Input.Belief(false, 3, now()));
    assertThat(told)
        .filteredOn(t -> !t.equals("sent ReadFacts"))
        .containsExactly("closed: no longer confirmed leader", "sent LetGo");
    assertThat(board.now().leader()).isFalse();
  }

  @Test
  void theAnswerSaysNotLeaderBeforeAGateClosesAndLeaderOnlyOnceItOpened() {
    List<Boolean> answeredLeader = new ArrayList<>();
    gates.add(telling(openedOrClosed -> answeredLeader.add(board.now().leader())));
    leaderSeen(3);
    answerLast(1, 1);
    loop.feed(new Input.Belief(false, 3, now()));
    assertThat(told).contains("opened 3", "closed: no longer confirmed leader");
    assertThat(answeredLeader).as("as each gate opened, then closed").containsExactly(false, false);
    assertThat(board.now().leader()).isFalse();
  }

  @Test
  void withoutARenewalTheTimerClosesTheGatesAtTheDeadline() {
    leaderSeen(3);
    answerLast(1, 1);
    long deadline = loop.state().gates().untilNanos();
    clock.set(deadline - 1);
    loop.feed(new Input.Tick()); // a renewal is sent; its answer never comes
    assertThat(loop.state().gates().open()).isTrue();
    clock.set(deadline);
    loop.feed(new Input.Tick());
    assertThat(loop.state().gates().open()).isFalse();
    assertThat(told).last().asString().startsWith("closed: ");
    assertThat(board.now().leader()).isFalse();
  }

  @Test
  void aBeliefInATermOlderThanOneThePodWasShownOpensNothing() {
    leaderSeen(5);
    answerLast(1, 1);
    assertThat(told).contains("opened 5");
    loop.feed(new Input.Belief(false, 5, now()));
    answerLast(1, 1); // the let-go: no call pending that could hold a take back
    assertThat(loop.state().key().callPending()).isFalse();
    sent.clear();
    // A read that was on its way from before the term moved on: leader, term 3.
    loop.feed(new Input.Belief(true, 3, now() + TTL - 100 * MS));
    loop.feed(new Input.Tick());
    assertThat(sent).noneMatch(c -> c instanceof HoldCall.Take);
    assertThat(loop.state().gates().open()).isFalse();
  }

  @Test
  void aTakeWhoseAnswerWasLostIsRecognisedWhenTheKeyNamesItsHold() {
    leaderSeen(3);
    HoldCall.Take lost = (HoldCall.Take) sent.get(sent.size() - 1);
    long lostAt = now();
    clock.addAndGet(1000 * MS);
    loop.feed(new Input.Answered(lost, lostAt, now(), null)); // given up on: it may still run
    clock.addAndGet(50 * MS);
    loop.feed(new Input.Tick());
    HoldCall.Take next = (HoldCall.Take) sent.get(sent.size() - 1);
    assertThat(next.hold()).as("a fresh name for every take").isNotEqualTo(lost.hold());

    // The lost take ran after all: the key is absent-taken (A) under its name.
    String value = new HoldValue(HoldValue.UNPROVEN, 3, 1, "run.repl", lost.hold()).raw();
    long sentAt = now();
    clock.addAndGet(MS);
    loop.feed(new Input.Answered(next, sentAt, now(), answer(0, value, now() / MS)));

    Hold h = loop.state().key().hold();
    assertThat(h).as("the lost take's hold, kept").isNotNull();
    assertThat(h.value()).isEqualTo(lost.hold());
    assertThat(h.proven()).isFalse();
    assertThat(loop.state().key().watched()).as("not watched as another's").isNull();
    assertThat(loop.state().gates().open()).isFalse();
  }

  @Test
  void anotherHoldsValueIsWatchedFromTheAnswerNotFromTheSending() {
    // A follower of the group: it reads who holds the key.
    podSeen("follower", Map.of(BatonNames.GROUP_ANNOTATION, "g"), null);
    HoldCall read = sent.get(sent.size() - 1);
    assertThat(read).isEqualTo(new HoldCall.ReadHolder(KEY));
    String other = HoldValue.hold("shop", "q", 2, "n", 0, "10.0.0.2");
    String value = new HoldValue(HoldValue.HELD, 2, 7, "run.repl", other).raw();
    long sentAt = now();
    clock.addAndGet(400 * MS); // a slow answer: the value was there when it ran, not when sent
    loop.feed(new Input.Answered(read, sentAt, now(), answer(1, value, now() / MS)));
    assertThat(loop.state().key().watched().sinceNanos()).isEqualTo(now());

    // Promoted: a take answered 0 with the same value keeps the watch's date.
    long answeredAt = now();
    clock.addAndGet(100 * MS);
    loop.feed(new Input.Belief(true, 3, now() + TTL - 100 * MS));
    podSeen(
        BatonNames.LEADER,
        Map.of(BatonNames.GROUP_ANNOTATION, "g", BatonNames.TERM_ANNOTATION, "3"),
        null);
    HoldCall.Take take = (HoldCall.Take) sent.get(sent.size() - 1);
    assertThat(take.expected()).as("not yet a whole ttl since the answer").isEmpty();
    long takeSent = now();
    clock.addAndGet(300 * MS);
    loop.feed(new Input.Answered(take, takeSent, now(), answer(0, value, now() / MS)));
    assertThat(loop.state().key().watched().sinceNanos()).isEqualTo(answeredAt);

    // Past a ttl from the read's sending, not yet from its answer: not named as stale.
    assertThat(takeAt(answeredAt + TTL - 50 * MS, value).expected()).isEmpty();
    assertThat(takeAt(answeredAt + TTL + 50 * MS, value).expected())
        .as("unchanged for a whole ttl since it was found")
        .isEqualTo(value);
  }

  /** The take sent at {@code at} (the one pending before answered 0 with {@code found}). */
  private HoldCall.Take takeAt(long at, String found) {
    HoldCall last = sent.get(sent.size() - 1);
    if (last instanceof HoldCall.Take pending && loop.state().key().callPending()) {
      loop.feed(new Input.Answered(pending, now(), now(), answer(0, found, now() / MS)));
    }
    clock.set(at);
    loop.feed(new Input.Tick());
    return (HoldCall.Take) sent.get(sent.size() - 1);
  }

  @Test
  void aTakeRefusedForANewerTermKeepsTheGateShut() {
    leaderSeen(3);
    answerLast(3, 1); // the key records a newer term
    clock.addAndGet(50 * MS);
    loop.feed(new Input.Tick());
    assertThat(loop.state().gates().open()).isFalse();
    assertThat(loop.state().key().hold()).isNull();
    assertThat(told).noneMatch(t -> t.startsWith("opened"));
  }

  @Test
  void aRedisClockThatStepsIsCountedAndAnotherIncarnationIsTold() {
    leaderSeen(3);
    answerLast(1, 1);
    clock.addAndGet(500 * MS);
    loop.feed(new Input.Tick());
    answerLast(1, 1); // in step with this clock
    assertThat(health.clockSteps()).isZero();
    clock.addAndGet(500 * MS);
    loop.feed(new Input.Tick());
    redisAhead += 2_500; // an NTP step of Redis's wall clock
    answerLast(1, 1);
    assertThat(health.clockSteps()).isEqualTo(1);
    assertThat(health.lastClockStepMillis()).isBetween(2_400L, 2_600L);

    clock.addAndGet(500 * MS);
    loop.feed(new Input.Tick());
    long sentAt = now();
    loop.feed(
        new Input.Answered(
            sent.get(sent.size() - 1), sentAt, now(), new HoldKey.Answer(2, "", "other.repl", 0)));
    assertThat(health.incarnationsSeen()).isEqualTo(1);
  }

  @Test
  void aHandOverToldWhileAReadIsOutIsReadAgainAtOnceAndNamesTheNewHolderAndItsAddress() {
    podSeen(BatonNames.FOLLOWER, Map.of(BatonNames.GROUP_ANNOTATION, "g"), "10.0.0.2");
    assertThat(sent).last().isEqualTo(new HoldCall.ReadHolder(KEY));
    HoldCall outstanding = sent.get(sent.size() - 1);
    long sentAt = now();
    sent.clear();
    // The old holder let go, and the new one took: told while the read is out.
    loop.feed(new Input.KeyMessage(KEY));
    assertThat(sent).noneMatch(c -> c instanceof HoldCall.ReadHolder);
    clock.addAndGet(MS);
    String released = "R 6 9 run.repl agent:shop/p0:6:x-1@10.0.0.1";
    loop.feed(new Input.Answered(outstanding, sentAt, now(), answer(1, released, 0)));
    assertThat(board.now().leaderPod()).isNull();
    assertThat(sent)
        .as("read again at once, not 2 s later")
        .last()
        .isInstanceOf(HoldCall.ReadHolder.class);

    String held = "H 7 0 run.repl agent:shop/p1:7:y-1@10.0.0.3";
    loop.feed(new Input.Answered(sent.get(sent.size() - 1), now(), now(), answer(1, held, 0)));
    assertThat(board.now().leaderPod()).isEqualTo("p1");
    assertThat(board.now().leaderTerm()).isEqualTo(7);
    assertThat(board.now().leaderIp()).isEqualTo("10.0.0.3");
  }
}
