package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The pod watch's periodic reads: each read schedules the next, and a read can be brought on. */
class PeriodicReadsTest {

  private final ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  @Test
  void eachReadSchedulesTheNextSoReadsNeverStop() throws InterruptedException {
    CountDownLatch reads = new CountDownLatch(6);
    PeriodicReads periodic =
        new PeriodicReads(threads, reads::countDown, () -> TimeUnit.MILLISECONDS.toNanos(5));

    periodic.within(0);

    assertThat(reads.await(10, TimeUnit.SECONDS)).isTrue();
    periodic.close();
  }

  @Test
  void aReadDueLaterIsBroughtForwardAndItsSuccessorsFollow() throws InterruptedException {
    CountDownLatch reads = new CountDownLatch(3);
    PeriodicReads periodic =
        new PeriodicReads(threads, reads::countDown, () -> TimeUnit.MILLISECONDS.toNanos(5));

    periodic.within(TimeUnit.HOURS.toNanos(1));
    periodic.within(0);

    assertThat(reads.await(10, TimeUnit.SECONDS)).isTrue();
    periodic.close();
  }
}
