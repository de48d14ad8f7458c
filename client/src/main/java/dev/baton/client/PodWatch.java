package dev.baton.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leadership from the pod's own labels. A watch on that one pod (a field selector on its name)
 * delivers every change as it is written; a demotion revokes at once, anything else triggers a
 * read. Only reads confirm leadership, each for {@code confirmWithin} from the moment it was sent,
 * since a watch event may arrive late and an old "leader" must not extend a belief; a process that
 * asked for {@link BatonLeadership.Promotion#AT_ONCE} is granted a new term by the event itself,
 * until that read answers ({@link #promotedOnTheWatch}).
 *
 * <p>A pod cannot hear its predecessor let go through Kubernetes, so a promotion is granted only
 * once it has been seen for {@code confirmWithin}: the operator demotes the old leader before it
 * labels the new one (break before make), so by then the old leader has either seen its demotion or
 * run out of confirmations and revoked itself (docs/design.md, "Applications that know they lead").
 *
 * <p>Plain HTTP and JSON from the JDK and Jackson, so applications need no Kubernetes library; the
 * pod's service account needs {@code get} and {@code watch} on pods of its namespace.
 */
final class PodWatch implements BatonLeadership.Source {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Logger log = LoggerFactory.getLogger(PodWatch.class);

  /** Which API server, which pod, and the credentials (none outside a cluster). */
  record Target(
      URI apiServer, String namespace, String pod, Supplier<String> token, SSLContext tls) {

    static Target of(KubernetesApi api, String namespace, String pod) {
      return new Target(api.server(), namespace, pod, api.token(), api.tls());
    }

    /** In a pod: the API server's Service, the service account, POD_NAMESPACE and POD_NAME. */
    static Target fromEnvironment(Map<String, String> env) {
      String ns = env.get(LockOwner.POD_NAMESPACE);
      String pod = env.get(LockOwner.POD_NAME);
      if (!KubernetesApi.inCluster(env) || ns == null || pod == null) {
        throw new IllegalStateException(
            "not in a pod: KUBERNETES_SERVICE_HOST, "
                + LockOwner.POD_NAMESPACE
                + " and "
                + LockOwner.POD_NAME
                + " must be set");
      }
      return of(KubernetesApi.fromServiceAccount(env), ns, pod);
    }
  }

  private final BatonLeadership.Options options;
  private final BatonLeadership.Promotion promotion;
  private final Consumer<PodFacts> podSeen;
  private final long confirmWithinNanos;
  private final PodRequests requests;
  private final HttpClient http;
  private final ScheduledExecutorService threads;
  private volatile boolean closed;
  private volatile Events watch;
  private volatile BatonLeadership.WatchState watchState = BatonLeadership.WatchState.OPENING;
  private final AtomicLong watchFailures = new AtomicLong();
  private volatile int failuresInARow;
  private final PeriodicReads reads;
  private volatile String lastWatchProblem;
  private Consumer<BatonLeadership.Confirmation> sink;
  private Consumer<String> unreachable;
  // The term this pod was first seen promoted to, and when; guarded by this.
  private long promotedTerm = -1;
  private long promotedSeenAt;
  private boolean answered;
  private long lastAsked;
  private final Object seenLock = new Object();
  // Passing on under one lock keeps podSeen in the order the freshness check saw.
  private final PodFreshness freshness = new PodFreshness();

  PodWatch(Target target, BatonLeadership.Options options) {
    this(target, options, BatonLeadership.Promotion.AFTER_CONFIRM_WITHIN, facts -> {});
  }

  PodWatch(
      Target target,
      BatonLeadership.Options options,
      BatonLeadership.Promotion promotion,
      Consumer<PodFacts> podSeen) {
    this.options = options;
    this.promotion = promotion;
    this.podSeen = podSeen;
    this.confirmWithinNanos = options.confirmWithin().toNanos();
    this.requests = new PodRequests(target);
    this.http = requests.client(options.confirmEvery());
    this.threads = Executors.newScheduledThreadPool(2, DaemonThreads.named("baton-leadership-pod"));
    this.reads = new PeriodicReads(threads, this::confirm, this::readEveryNanos);
  }

  @Override
  public void start(Consumer<BatonLeadership.Confirmation> sink, Consumer<String> unreachable) {
    this.sink = sink;
    this.unreachable = unreachable;
    reads.within(0);
    threads.execute(this::openWatch);
  }

  /** How often the pod is read now: more often while the watch opens or is broken. */
  private long readEveryNanos() {
    return WatchRetry.readEvery(watchState, options.confirmEvery()).toNanos();
  }

  /** The watch stands so now; reads come as often as that asks, starting now if need be. */
  private void watchIs(BatonLeadership.WatchState state) {
    watchState = state;
    reads.within(readEveryNanos());
  }

  /** A read of the pod: confirms (or not) from the moment it was sent. */
  private void confirm() {
    if (closed) {
      return;
    }
    long asked = System.nanoTime();
    try {
      HttpResponse<String> r =
          http.send(
              requests.read().timeout(options.confirmEvery()).build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 404) {
        seen(PodFacts.GONE, -1, asked, true);
        notLeader(asked);
        return;
      }
      if (r.statusCode() != 200) {
        unreachable.accept("reading the pod was answered " + r.statusCode());
        return;
      }
      JsonNode pod = JSON.readTree(r.body());
      seen(PodJson.facts(pod), PodFreshness.version(pod), asked, true);
      observed(pod.path("metadata"), asked);
    } catch (IOException e) {
      unreachable.accept("the API server did not answer: " + e.getClass().getSimpleName());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void observed(JsonNode meta, long asked) {
    if (answered && asked - lastAsked < 0) {
      return; // a slower read that a newer answer already overtook
    }
    answered = true;
    lastAsked = asked;
    long term = PodJson.term(meta, options.roleLabel());
    if (term < 0) {
      notLeader(asked);
      return;
    }
    long now = System.nanoTime();
    if (term != promotedTerm) {
      promotedTerm = term;
      promotedSeenAt = now;
      later(this::confirm, confirmWithinNanos);
    }
    if (promotion == BatonLeadership.Promotion.AT_ONCE
        || now - promotedSeenAt >= confirmWithinNanos) {
      sink.accept(
          new BatonLeadership.Confirmation(true, term, options.confirmWithin().toMillis(), asked));
    } else {
      sink.accept(new BatonLeadership.Confirmation(false, 0, 0, asked));
    }
  }

  /**
   * A watch event that shows this pod leading for {@code term}. The read it triggers confirms it;
   * with {@link BatonLeadership.Promotion#AT_ONCE}, a term not granted yet is granted from the
   * event itself, which saves that read's round trip, for no longer than the read may take ({@code
   * confirmEvery}). Such a process keeps its predecessor out by other means, so a late event costs
   * at most that long under a term already superseded. Only an event newer than every read taken
   * (by resourceVersion) grants: a read that already showed the demotion is not undone by the
   * promotion's event arriving late. An event never extends a belief: a late one could show a label
   * that a demotion, still on its way, took away.
   */
  private synchronized void promotedOnTheWatch(long term, long received) {
    if (promotion != BatonLeadership.Promotion.AT_ONCE
        || term == promotedTerm
        || answered && received - lastAsked < 0) {
      return;
    }
    answered = true;
    lastAsked = received;
    promotedTerm = term;
    promotedSeenAt = received;
    sink.accept(
        new BatonLeadership.Confirmation(true, term, options.confirmEvery().toMillis(), received));
  }

  private synchronized void notLeader(long at) {
    if (!answered || at - lastAsked > 0) {
      answered = true;
      lastAsked = at;
    }
    promotedTerm = -1;
    sink.accept(new BatonLeadership.Confirmation(false, 0, 0, at));
  }

  /**
   * Tells podSeen what a read or an event showed, unless it is older than what it was told.
   *
   * @return whether it was told
   */
  private boolean seen(PodFacts facts, long version, long at, boolean read) {
    synchronized (seenLock) {
      if (freshness.newer(version, at, read)) {
        podSeen.accept(facts);
        return true;
      }
      return false;
    }
  }

  /**
   * Watches the pod as kubectl and client-go do: a {@code GET ...?watch=true}, answered with a
   * chunked stream of JSON events, one per line. (A real API server refuses a WebSocket watch
   * without an {@code Origin} header.) Opened again whenever it ends; after a failure within 100
   * ms, then later and later ({@link WatchRetry}), so that a watch the server refuses costs a
   * request every few seconds, while the periodic reads confirm.
   */
  private void openWatch() {
    if (closed) {
      return;
    }
    if (watchState != BatonLeadership.WatchState.OPEN) {
      watchIs(BatonLeadership.WatchState.OPENING);
    }
    HttpRequest req = requests.watch();
    Events events = new Events();
    watch = events;
    long opened = System.nanoTime();
    http.sendAsync(req, events)
        .whenComplete(
            (response, error) -> {
              if (error != null) {
                watchFailed(
                    "the pod watch broke: "
                        + (error.getCause() == null ? error : error.getCause())
                            .getClass()
                            .getSimpleName(),
                    BatonLeadership.WatchState.BROKEN);
              } else if (response.statusCode() != 200) {
                watchFailed(
                    "the pod watch was refused: "
                        + response.statusCode()
                        + " "
                        + abbreviate(String.valueOf(response.body())),
                    BatonLeadership.WatchState.REFUSED);
              } else if (System.nanoTime() - opened > TimeUnit.SECONDS.toNanos(1)) {
                // The server ended it (timeoutSeconds): open the next one at once.
                watchIs(BatonLeadership.WatchState.OPENING);
                later(this::openWatch, 0);
              } else {
                watchFailed(
                    "the pod watch ended as soon as it opened", BatonLeadership.WatchState.BROKEN);
              }
            });
  }

  private void watchFailed(String why, BatonLeadership.WatchState state) {
    if (closed) {
      return;
    }
    watchIs(state);
    watchFailures.incrementAndGet();
    unreachable.accept(why);
    Duration retry = WatchRetry.after(++failuresInARow, state);
    if (!why.equals(lastWatchProblem)) {
      lastWatchProblem = why;
      log.warn(
          "{}; leadership is confirmed by reads every {} ms until it opens (asked for again in {}"
              + " ms, then later and later)",
          why,
          WatchRetry.readEvery(state, options.confirmEvery()).toMillis(),
          retry.toMillis());
    }
    later(this::openWatch, retry.toNanos());
  }

  private static String abbreviate(String body) {
    String one = body.replaceAll("\\s+", " ").trim();
    return one.length() <= 200 ? one : one.substring(0, 200) + "...";
  }

  /**
   * One watch's response: a 200's lines are its events (a demotion revokes at once, anything else
   * is read to confirm it); any other answer's body is kept for the log line.
   */
  private final class Events implements HttpResponse.BodyHandler<Object> {

    private volatile Flow.Subscription subscription;
    private volatile boolean cancelled;

    void cancel() {
      cancelled = true;
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
    }

    @Override
    public HttpResponse.BodySubscriber<Object> apply(HttpResponse.ResponseInfo info) {
      if (info.statusCode() != 200) {
        return HttpResponse.BodySubscribers.mapping(
            HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8), body -> body);
      }
      watchIs(BatonLeadership.WatchState.OPEN);
      failuresInARow = 0;
      lastWatchProblem = null;
      return HttpResponse.BodySubscribers.mapping(
          HttpResponse.BodySubscribers.fromLineSubscriber(new Lines()), v -> "");
    }

    private final class Lines implements Flow.Subscriber<String> {
      @Override
      public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (cancelled) {
          s.cancel();
        } else {
          s.request(Long.MAX_VALUE);
        }
      }

      @Override
      public void onNext(String line) {
        if (!line.isBlank()) {
          event(line);
        }
      }

      @Override
      public void onError(Throwable error) {
        // the response's future fails with it, and the watch is opened again from there
      }

      @Override
      public void onComplete() {
        // likewise
      }
    }

    private void event(String text) {
      long received = System.nanoTime();
      try {
        JsonNode e = JSON.readTree(text);
        switch (e.path("type").asText()) {
          case "ADDED", "MODIFIED" -> {
            boolean newest =
                seen(
                    PodJson.facts(e.path("object")),
                    PodFreshness.version(e.path("object")),
                    received,
                    false);
            long term = PodJson.term(e.path("object").path("metadata"), options.roleLabel());
            if (term < 0) {
              notLeader(received);
            } else {
              if (newest) {
                promotedOnTheWatch(term, received);
              }
              later(PodWatch.this::confirm, 0);
            }
          }
          case "DELETED" -> {
            seen(PodFacts.GONE, PodFreshness.version(e.path("object")), received, false);
            notLeader(received);
          }
          default -> {
            // BOOKMARK, or ERROR (e.g. the version expired): the reads go on either way
          }
        }
      } catch (IOException e) {
        unreachable.accept("an unreadable watch event");
      }
    }
  }

  @Override
  public boolean watching() {
    return watchState == BatonLeadership.WatchState.OPEN;
  }

  @Override
  public BatonLeadership.WatchState watchState() {
    return watchState;
  }

  @Override
  public long watchFailures() {
    return watchFailures.get();
  }

  private void later(Runnable task, long delayNanos) {
    try {
      threads.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  @Override
  public void close() {
    closed = true;
    reads.close();
    threads.shutdownNow();
    Events w = watch;
    if (w != null) {
      w.cancel(); // closes the watch's connection
    }
  }
}
