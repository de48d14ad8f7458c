package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The decisions of {@link BatonLeadership} on what a source tells it, with a scripted source. */
class BatonLeadershipTest {

  private final ScriptedSource source = new ScriptedSource();
  private final List<String> heard = new CopyOnWriteArrayList<>();
  private BatonLeadership leadership;

  @AfterEach
  void close() {
    if (leadership != null) {
      leadership.close();
    }
  }

  private void start(BatonLeadership.Options options) {
    leadership = new BatonLeadership(source, options);
    leadership.addListener(
        new LeadershipListener() {
          @Override
          public void granted(long term) {
            heard.add("granted " + term);
          }

          @Override
          public void revoked(String reason) {
            heard.add("revoked: " + reason);
          }
        });
  }

  @Test
  void grantedOnAConfirmationAndRevokedWhenAnotherLeads() throws Exception {
    start(BatonLeadership.Options.defaults());
    source.tell(true, 7, 10_000);
    awaitHeard(1);
    assertThat(leadership.isLeader()).isTrue();
    assertThat(leadership.term()).isEqualTo(7);
    source.tell(false, 0, 0);
    awaitHeard(2);
    assertThat(heard).containsExactly("granted 7", "revoked: another pod leads now");
    assertThat(source.released).containsExactly(7L);
    assertThat(leadership.isLeader()).isFalse();
    assertThat(leadership.term()).as("the last term stays readable").isEqualTo(7);
  }

  @Test
  void revokedBeforeItsConfirmationRunsOutWhenNothingConfirmsIt() throws Exception {
    start(BatonLeadership.Options.defaults());
    source.tell(true, 3, 400);
    awaitHeard(2);
    assertThat(heard.get(1)).startsWith("revoked: leadership could not be confirmed");
    assertThat(source.released).containsExactly(3L);
  }

  @Test
  void theUnreachableReasonIsGivenWithTheRevocation() throws Exception {
    start(BatonLeadership.Options.defaults());
    source.tell(true, 3, 300);
    source.unreachable.accept("Redis did not answer: RedisTimeoutException");
    awaitHeard(2);
    assertThat(heard.get(1)).contains("(Redis did not answer: RedisTimeoutException)");
  }

  @Test
  void stayingLeaderWhenUnconfirmedIgnoresTheDeadlineButNotANewLeader() throws Exception {
    start(BatonLeadership.Options.defaults().withStayLeaderWhenUnconfirmed(true));
    source.tell(true, 3, 200);
    awaitHeard(1);
    // Well past the deadline, which is checked every 25 ms on the leadership thread...
    Thread.sleep(500);
    // ...and that thread, live and still leading, tells a new listener so.
    List<Long> probe = new CopyOnWriteArrayList<>();
    leadership.addListener(recording(probe));
    awaitNonEmpty(probe);
    assertThat(probe).containsExactly(3L);
    assertThat(heard).containsExactly("granted 3");
    assertThat(leadership.isLeader()).isTrue();
    source.tell(false, 0, 0);
    awaitHeard(2);
    assertThat(leadership.isLeader()).isFalse();
  }

  @Test
  void aConfirmationAlreadyRunOutGrantsNothing() throws Exception {
    start(BatonLeadership.Options.defaults());
    source.tell(true, 3, 50, System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(60));
    // A later, valid confirmation is heard only after the run-out one was handled: in order.
    source.tell(true, 5, 10_000);
    awaitHeard(1);
    assertThat(heard).containsExactly("granted 5");
  }

  @Test
  void anAnswerOvertakenByANewerOneIsIgnored() throws Exception {
    start(BatonLeadership.Options.defaults());
    long older = System.nanoTime();
    long newer = older + 1;
    source.tell(false, 0, 0, newer);
    source.tell(true, 4, 10_000, older);
    // Answers are handled in order: once the newest is heard, the overtaken one was ignored.
    source.tell(true, 8, 10_000, newer + 1);
    awaitHeard(1);
    assertThat(heard).containsExactly("granted 8");
  }

  @Test
  void aNewTermRevokesTheOldOneBeforeItIsGranted() throws Exception {
    start(BatonLeadership.Options.defaults());
    source.tell(true, 4, 10_000);
    source.tell(true, 6, 10_000);
    awaitHeard(3);
    assertThat(heard)
        .containsExactly("granted 4", "revoked: the term changed from 4 to 6", "granted 6");
  }

  @Test
  void aListenerAddedWhileLeadingIsToldAtOnce() throws Exception {
    start(BatonLeadership.Options.defaults());
    source.tell(true, 9, 10_000);
    awaitHeard(1);
    List<Long> late = new CopyOnWriteArrayList<>();
    leadership.addListener(recording(late));
    awaitNonEmpty(late);
    assertThat(late).containsExactly(9L);
  }

  @Test
  void closingRevokesAndLetsGo() throws Exception {
    start(BatonLeadership.Options.defaults());
    source.tell(true, 2, 10_000);
    awaitHeard(1);
    leadership.close();
    assertThat(heard).containsExactly("granted 2", "revoked: closed");
    assertThat(source.released).containsExactly(2L);
    assertThat(source.closed).isTrue();
    leadership = null;
  }

  @Test
  void optionsRefuseAConfirmationWindowShorterThanTwoReads() {
    assertThatThrownBy(
            () -> BatonLeadership.Options.defaults().withConfirmWithin(Duration.ofMillis(900)))
        .hasMessageContaining("confirmWithin (900ms) must be at least twice confirmEvery (500ms)");
  }

  @Test
  void aFenceAdmitsOnlyTermsNotBelowTheHighestSeen() {
    TermFence fence = new TermFence();
    assertThat(fence.admit(3)).isTrue();
    assertThat(fence.admit(3)).as("the same leader again").isTrue();
    assertThat(fence.admit(5)).isTrue();
    assertThat(fence.admit(4)).as("an old leader's late write").isFalse();
    assertThat(fence.highest()).isEqualTo(5);
  }

  private static LeadershipListener recording(List<Long> granted) {
    return new LeadershipListener() {
      @Override
      public void granted(long term) {
        granted.add(term);
      }

      @Override
      public void revoked(String reason) {}
    };
  }

  private static void awaitNonEmpty(List<Long> list) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (list.isEmpty() && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(list).isNotEmpty();
  }

  private void awaitHeard(int n) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (heard.size() < n && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(heard).hasSizeGreaterThanOrEqualTo(n);
  }

  /** A source the test speaks for. */
  private static final class ScriptedSource implements BatonLeadership.Source {

    private Consumer<BatonLeadership.Confirmation> sink;
    private Consumer<String> unreachable;
    private final List<Long> released = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    @Override
    public void start(Consumer<BatonLeadership.Confirmation> sink, Consumer<String> unreachable) {
      this.sink = sink;
      this.unreachable = unreachable;
    }

    void tell(boolean leader, long term, long validForMillis) {
      tell(leader, term, validForMillis, System.nanoTime());
    }

    void tell(boolean leader, long term, long validForMillis, long askedAt) {
      sink.accept(new BatonLeadership.Confirmation(leader, term, validForMillis, askedAt));
    }

    @Override
    public void released(long term) {
      released.add(term);
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
