package dev.baton.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.redisson.api.RFuture;
import org.redisson.client.RedisException;
import org.redisson.client.RedisTimeoutException;

/**
 * Waits for a Redisson call by our own clock as well as Redisson's. Redisson's synchronous calls
 * wait on its future without a bound, and that future has been seen never to complete after a Redis
 * restart: one such call would hold its thread for good. The bound only backs Redisson's own
 * timeouts up, so it is set above their worst case.
 */
public final class BoundedRedisCall {

  private BoundedRedisCall() {}

  /**
   * The call's answer, or a {@link RedisException} (a {@link RedisTimeoutException} when the bound
   * ran out), as Redisson's synchronous call would throw.
   */
  public static <T> T await(RFuture<T> call, Duration bound) {
    CompletableFuture<T> future = call.toCompletableFuture();
    try {
      return future.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(false);
      throw new RedisTimeoutException("no answer within " + bound.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(false);
      throw new RedisException("interrupted while waiting for Redis", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RedisException redis) {
        throw redis;
      }
      throw new RedisException(
          cause == null ? "Redis call failed" : cause.getClass().getSimpleName(), cause);
    }
  }
}
