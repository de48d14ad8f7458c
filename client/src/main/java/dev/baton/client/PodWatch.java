package dev.baton.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * Leadership from the pod's own labels. A watch on that one pod (a field selector on its name)
 * delivers every change as it is written; a demotion revokes at once, anything else triggers a
 * read. Only reads confirm leadership, each for {@code confirmWithin} from the moment it was sent,
 * since a watch event may arrive late and an old "leader" must not extend a belief.
 *
 * <p>A pod cannot hear its predecessor let go through Kubernetes, so a promotion is granted only
 * once it has been seen for {@code confirmWithin}: the operator demotes the old leader before it
 * labels the new one (break before make), so by then the old leader has either seen its demotion or
 * run out of confirmations and revoked itself (docs/design.md, "Applications that know they lead").
 *
 * <p>Plain HTTP, WebSocket and JSON from the JDK and Jackson, so applications need no Kubernetes
 * library; the pod's service account needs {@code get} and {@code watch} on pods of its namespace.
 */
final class PodWatch implements BatonLeadership.Source {

  private static final ObjectMapper JSON = new ObjectMapper();

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

  private final Target target;
  private final BatonLeadership.Options options;
  private final BatonLeadership.Promotion promotion;
  private final Consumer<PodFacts> podSeen;
  private final long confirmWithinNanos;
  private final HttpClient http;
  private final ScheduledExecutorService threads;
  private volatile boolean closed;
  private volatile WebSocket watch;
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
    this.target = target;
    this.options = options;
    this.promotion = promotion;
    this.podSeen = podSeen;
    this.confirmWithinNanos = options.confirmWithin().toNanos();
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(options.confirmEvery());
    if ("http".equals(target.apiServer().getScheme())) {
      // No h2c upgrade over plain HTTP: some servers (the mock API server) mishandle it.
      b.version(HttpClient.Version.HTTP_1_1);
      // A client given no TLS context builds the JVM's default one for connections it will
      // never make: the security providers, the cipher suites and the cacerts file, about 700
      // classes and a quarter of a second of the start.
      b.sslContext(new NoTls()).sslParameters(new SSLParameters());
    } else if (target.tls() != null) {
      b.sslContext(target.tls());
    }
    this.http = b.build();
    this.threads = Executors.newScheduledThreadPool(2, DaemonThreads.named("baton-leadership-pod"));
  }

  @Override
  public void start(Consumer<BatonLeadership.Confirmation> sink, Consumer<String> unreachable) {
    this.sink = sink;
    this.unreachable = unreachable;
    long every = options.confirmEvery().toMillis();
    threads.scheduleWithFixedDelay(this::confirm, 0, every, TimeUnit.MILLISECONDS);
    threads.execute(this::openWatch);
  }

  private String podPath() {
    return "/api/v1/namespaces/" + enc(target.namespace()) + "/pods/" + enc(target.pod());
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
              request(podPath()).timeout(options.confirmEvery()).build(),
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

  private synchronized void notLeader(long at) {
    if (!answered || at - lastAsked > 0) {
      answered = true;
      lastAsked = at;
    }
    promotedTerm = -1;
    sink.accept(new BatonLeadership.Confirmation(false, 0, 0, at));
  }

  /** Tells podSeen what a read or an event showed, unless it is older than what it was told. */
  private void seen(PodFacts facts, long version, long at, boolean read) {
    synchronized (seenLock) {
      if (freshness.newer(version, at, read)) {
        podSeen.accept(facts);
      }
    }
  }

  /**
   * Watches the pod over a WebSocket (the API server serves watches both as a stream and over
   * WebSockets; the latter also works against test servers). Opened again whenever it ends.
   */
  private void openWatch() {
    if (closed) {
      return;
    }
    String query =
        "?fieldSelector="
            + enc("metadata.name=" + target.pod())
            + "&watch=true&allowWatchBookmarks=true&timeoutSeconds=300";
    URI api = target.apiServer();
    String scheme = "https".equals(api.getScheme()) ? "wss" : "ws";
    URI uri =
        URI.create(
            scheme
                + "://"
                + api.getRawAuthority()
                + "/api/v1/namespaces/"
                + enc(target.namespace())
                + "/pods"
                + query);
    WebSocket.Builder b = http.newWebSocketBuilder().connectTimeout(options.confirmEvery());
    if (target.token() != null) {
      b.header("Authorization", "Bearer " + target.token().get());
    }
    b.buildAsync(uri, new Events())
        .whenComplete(
            (ws, error) -> {
              if (error != null) {
                watchEnded(
                    "the pod watch could not be opened: " + error.getClass().getSimpleName());
              } else {
                watch = ws;
              }
            });
  }

  private void watchEnded(String why) {
    if (closed) {
      return;
    }
    unreachable.accept(why);
    // Until the watch is back, the periodic reads alone confirm; reopen after a pause.
    later(this::openWatch, options.confirmEvery().toNanos());
  }

  /** One watch's events: a demotion revokes at once, anything else is read to confirm it. */
  private final class Events implements WebSocket.Listener {

    private final StringBuilder message = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      message.append(data);
      if (last) {
        String text = message.toString();
        message.setLength(0);
        event(text);
      }
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket ws, java.nio.ByteBuffer data, boolean last) {
      byte[] bytes = new byte[data.remaining()];
      data.get(bytes);
      return onText(ws, new String(bytes, StandardCharsets.UTF_8), last);
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
      watchEnded("the pod watch ended (" + status + ")");
      return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
      watchEnded("the pod watch broke: " + error.getClass().getSimpleName());
    }

    private void event(String text) {
      long received = System.nanoTime();
      try {
        JsonNode e = JSON.readTree(text);
        switch (e.path("type").asText()) {
          case "ADDED", "MODIFIED" -> {
            seen(
                PodJson.facts(e.path("object")),
                PodFreshness.version(e.path("object")),
                received,
                false);
            if (PodJson.term(e.path("object").path("metadata"), options.roleLabel()) < 0) {
              notLeader(received);
            } else {
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

  private void later(Runnable task, long delayNanos) {
    try {
      threads.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(target.apiServer().resolve(path))
            .header("Accept", "application/json");
    if (target.token() != null) {
      b.header("Authorization", "Bearer " + target.token().get());
    }
    return b;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    closed = true;
    WebSocket ws = watch;
    if (ws != null) {
      ws.abort();
    }
    threads.shutdownNow();
  }
}
