package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.misc.CompletableFutureWrapper;

/**
 * A Redisson future that never completes is the case a real Redis cannot be made to produce on
 * demand, so these use futures built by hand.
 */
class BoundedRedisCallTest {

  @Test
  void aCallThatNeverAnswersEndsAtTheBoundAndIsCancelled() {
    CompletableFuture<String> never = new CompletableFuture<>();
    assertThatThrownBy(
            () ->
                BoundedRedisCall.await(
                    new CompletableFutureWrapper<>(never), Duration.ofMillis(50)))
        .isInstanceOf(RedisTimeoutException.class)
        .hasMessage("no answer within 50 ms");
    assertThat(never).isCancelled();
  }

  @Test
  void anAnswerPassesThrough() {
    assertThat(
            BoundedRedisCall.await(
                new CompletableFutureWrapper<>(CompletableFuture.completedFuture("OK")),
                Duration.ofSeconds(1)))
        .isEqualTo("OK");
  }

  @Test
  void redissonsOwnFailureIsThrownAsItIs() {
    RedisConnectionException refused = new RedisConnectionException("connection refused");
    assertThatThrownBy(
            () ->
                BoundedRedisCall.await(
                    new CompletableFutureWrapper<>(CompletableFuture.failedFuture(refused)),
                    Duration.ofSeconds(1)))
        .isSameAs(refused);
  }

  @Test
  void anyOtherFailureBecomesARedisException() {
    IllegalStateException odd = new IllegalStateException("odd");
    assertThatThrownBy(
            () ->
                BoundedRedisCall.await(
                    new CompletableFutureWrapper<>(CompletableFuture.failedFuture(odd)),
                    Duration.ofSeconds(1)))
        .isInstanceOf(RedisException.class)
        .hasCause(odd);
  }
}
