package dev.baton.agent.threads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testkit.Timeouts;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An Error on any thread the agent made ends the process (here: the recorded halt), whatever kind
 * of thread it struck; an exception ends only the task that threw it.
 */
class AgentThreadsTest {

  private final AtomicInteger halts = new AtomicInteger();
  private final CountDownLatch halted = new CountDownLatch(1);
  private final AgentThreads threads =
      new AgentThreads(
          () -> {
            halts.incrementAndGet();
            halted.countDown();
          });

  @AfterEach
  void close() {
    threads.close();
  }

  private static Runnable error() {
    return () -> {
      throw new OutOfMemoryError("as a gate loop might meet it");
    };
  }

  private void assertHaltedBy(Consumer<Runnable> run) throws InterruptedException {
    run.accept(error());
    assertThat(halted.await(Timeouts.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("the process is ended")
        .isTrue();
  }

  @Test
  void anErrorOnAThreadOfItsOwnEndsTheProcess() throws Exception {
    assertHaltedBy(body -> threads.thread("baton-agent-gate-test", body).start());
  }

  @Test
  void anErrorInATaskOfTheSingleThreadEndsTheProcess() throws Exception {
    assertHaltedBy(body -> threads.single("baton-agent-leadership-test").execute(body));
  }

  @Test
  void anErrorInAScheduledTaskEndsTheProcess() throws Exception {
    ScheduledExecutorService single = threads.single("baton-agent-timer-test");
    assertHaltedBy(body -> single.schedule(body, 5, TimeUnit.MILLISECONDS));
  }

  @Test
  void anErrorInATaskOfABoundedPoolEndsTheProcessWhetherExecutedOrSubmitted() throws Exception {
    ExecutorService pool = threads.bounded("baton-agent-http-test", 2, 0);
    assertHaltedBy(pool::submit);
  }

  @Test
  void anErrorInAnExecutedTaskOfABoundedPoolEndsTheProcess() throws Exception {
    ExecutorService pool = threads.bounded("baton-agent-relay-test", 2, 0);
    assertHaltedBy(pool::execute);
  }

  @Test
  void anExceptionEndsOnlyItsTaskAndTheThreadGoesOnWithTheNext() throws Exception {
    ScheduledExecutorService single = threads.single("baton-agent-leadership-test");
    CountDownLatch next = new CountDownLatch(1);
    single.execute(
        () -> {
          throw new IllegalStateException("one task's mistake");
        });
    single.execute(next::countDown);
    assertThat(next.await(Timeouts.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    ExecutorService pool = threads.bounded("baton-agent-http-test", 1, 0);
    Future<?> failing =
        pool.submit(
            (Runnable)
                () -> {
                  throw new IllegalArgumentException("another");
                });
    assertThatThrownBy(() -> failing.get(Timeouts.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThat(halts).hasValue(0);
  }
}
