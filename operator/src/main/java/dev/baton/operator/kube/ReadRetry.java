package dev.baton.operator.kube;

import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read the API server asks to be sent again later (429 Too Many Requests, 503 Service
 * Unavailable) is sent once more after the time it names in {@code Retry-After} (1 s when it names
 * none, at most 10 s), as a real server asks for about a second after a CRD is created or after it
 * restarted ("storage is (re)initializing"). A refusal that outlives the resend fails the read as
 * before: an informer then lists again on its own back-off, a reconcile goes to JOSDK's retry.
 * Writes are never resent here (the write fence decides each write as it is sent: {@link
 * dev.baton.operator.replica.ReplicaClients}). The last refusal is kept for readiness to tell.
 */
public final class ReadRetry implements Interceptor {

  private static final Logger log = LoggerFactory.getLogger(ReadRetry.class);

  static final Duration DEFAULT_WAIT = Duration.ofSeconds(1);
  static final Duration MAX_WAIT = Duration.ofSeconds(10);

  private volatile String lastRefusal;

  @Override
  public CompletableFuture<Boolean> afterFailure(
      HttpRequest.Builder builder, HttpResponse<?> response, RequestTags tags) {
    int code = response.code();
    HttpRequest request = response.request();
    if ((code != 429 && code != 503) || request == null || !"GET".equals(request.method())) {
      return CompletableFuture.completedFuture(false);
    }
    Duration wait = wait(response.header("Retry-After"));
    lastRefusal =
        "GET "
            + request.uri().getPath()
            + " answered "
            + code
            + ", asked again in "
            + wait.toMillis()
            + " ms";
    log.info("The API server {}", lastRefusal);
    return CompletableFuture.supplyAsync(
        () -> true, CompletableFuture.delayedExecutor(wait.toMillis(), TimeUnit.MILLISECONDS));
  }

  /** The wait a Retry-After header asks for, in seconds; an HTTP date counts as the default. */
  static Duration wait(String retryAfter) {
    if (retryAfter == null) {
      return DEFAULT_WAIT;
    }
    try {
      long seconds = Long.parseLong(retryAfter.trim());
      Duration asked = Duration.ofSeconds(Math.max(0, seconds));
      return asked.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : asked;
    } catch (NumberFormatException e) {
      return DEFAULT_WAIT;
    }
  }

  /** The last read the server refused, as a sentence for /readyz; null when none was. */
  public String lastRefusal() {
    return lastRefusal;
  }
}
