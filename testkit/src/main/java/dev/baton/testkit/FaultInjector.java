package dev.baton.testkit;

import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Sits in front of the mock API server's handling and, while switched on, answers some writes with
 * 500 or 409 and delays some requests, as a struggling API server would. It also keeps every write
 * it saw, with the client's user agent, so a test can tell which operator replica wrote what.
 * Watches are left alone. The operator's leader-election permission check is answered as a real API
 * server would.
 */
public final class FaultInjector extends Dispatcher {

  private final Dispatcher real;
  private final Random random;
  private volatile Predicate<RecordedRequest> alwaysFail = r -> false;
  private volatile double errorRate;
  private volatile int maxDelayMillis;
  public final AtomicLong injected = new AtomicLong();
  public final AtomicLong requests = new AtomicLong();
  private final List<Seen> writes = new CopyOnWriteArrayList<>();

  /** A write the API server received: when (System.nanoTime), from which client, what. */
  public record Seen(long atNanos, String userAgent, String method, String path) {}

  public FaultInjector(Dispatcher real, long seed) {
    this.real = real;
    this.random = new Random(seed);
  }

  /** Errors on this share of writes, and delays of up to this many ms on any request. */
  public void set(double errorRate, int maxDelayMillis) {
    this.errorRate = errorRate;
    this.maxDelayMillis = maxDelayMillis;
  }

  /** Answers every request matching {@code which} with a 500 until {@link #clear()}. */
  public void failAll(Predicate<RecordedRequest> which) {
    this.alwaysFail = which;
  }

  /** No more errors or delays. */
  public void clear() {
    alwaysFail = r -> false;
    set(0, 0);
  }

  /** A write to the status of one custom resource: {@code plural} as in its URL. */
  public static Predicate<RecordedRequest> statusWrites(String plural, String name) {
    return r ->
        !r.getMethod().equals("GET") && r.getPath().contains("/" + plural + "/" + name + "/status");
  }

  /** Every write received so far, in order (reads, lists and watches are not kept). */
  public List<Seen> writes() {
    return List.copyOf(writes);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    requests.incrementAndGet();
    if (!request.getMethod().equals("GET")) {
      writes.add(
          new Seen(
              System.nanoTime(),
              request.getHeader("User-Agent"),
              request.getMethod(),
              request.getPath()));
    }
    String path = request.getPath();
    if (alwaysFail.test(request)) {
      injected.incrementAndGet();
      return new MockResponse()
          .setResponseCode(500)
          .setBody(
              "{\"kind\":\"Status\","
                  + "\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":500,"
                  + "\"reason\":\"InternalError\",\"message\":\"injected fault\"}");
    }
    if (path.contains("selfsubjectrulesreviews")) {
      return new MockResponse().setResponseCode(201).setBody(ALL_LEASE_RULES);
    }
    boolean watch = path.contains("watch=true");
    boolean write = !request.getMethod().equals("GET");
    double roll;
    int delay;
    synchronized (random) {
      roll = random.nextDouble();
      delay = maxDelayMillis == 0 ? 0 : random.nextInt(maxDelayMillis + 1);
    }
    if (!watch && write && roll < errorRate) {
      injected.incrementAndGet();
      boolean conflict = roll < errorRate / 2 && !request.getMethod().equals("POST");
      int code = conflict ? 409 : 500;
      return new MockResponse()
          .setResponseCode(code)
          .setBody(
              "{\"kind\":\"Status\","
                  + "\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":"
                  + code
                  + ",\"reason\":\""
                  + (conflict ? "Conflict" : "InternalError")
                  + "\",\"message\":\"injected fault\"}");
    }
    if (!watch && delay > 0) {
      injected.incrementAndGet();
      try {
        Thread.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return real.dispatch(request);
  }

  @Override
  public void shutdown() {
    real.shutdown();
  }

  private static final String ALL_LEASE_RULES =
      "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectRulesReview\","
          + "\"spec\":{},\"status\":{\"incomplete\":false,\"nonResourceRules\":[],"
          + "\"resourceRules\":[{\"apiGroups\":[\"coordination.k8s.io\"],"
          + "\"resources\":[\"leases\"],\"verbs\":[\"*\"]}]}}";
}
