package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The embedded API server as a real one behaves where the stock mock does not, each when a test
 * asks: a seeded latency profile, lists refused while storage initializes, dropped watch requests.
 */
class ServerConditionsTest {

  private final EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @AfterEach
  void stop() {
    kubernetes.close();
  }

  @Test
  void theRealServerProfileDrawsWhatItsHistogramSays() {
    LatencyProfile profile = LatencyProfile.kubeApiserver132(7);
    Random random = new Random(1);
    List<Double> patches = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      patches.add(profile.podWrite().draw(random));
    }
    assertThat(share(patches, 5)).isBetween(0.09, 0.11);
    assertThat(share(patches, 25)).isBetween(0.79, 0.81);
    assertThat(share(patches, 100)).isBetween(0.985, 0.995);
    assertThat(profile.podWrite().shareUnder(25)).isEqualTo(0.80);
    assertThat(profile.read().shareUnder(5)).isEqualTo(0.84);
    assertThat(profile.resourceWrite().shareUnder(25)).isEqualTo(0.97);
    assertThat(profile.watch().shareUnder(2)).isZero();
    assertThat(profile.watch().shareUnder(10)).isEqualTo(1.0);
  }

  @Test
  void aSeedDrawsTheSameDelaysEveryRun() {
    LatencyProfile.Draws a = LatencyProfile.kubeApiserver132(42).draws();
    LatencyProfile.Draws b = LatencyProfile.kubeApiserver132(42).draws();
    for (int i = 0; i < 100; i++) {
      assertThat(a.request(ServerConditions.Kind.POD_WRITE))
          .isEqualTo(b.request(ServerConditions.Kind.POD_WRITE));
      assertThat(a.watchEvent()).isEqualTo(b.watchEvent());
    }
    // One kind's traffic leaves another's draws alone.
    LatencyProfile.Draws c = LatencyProfile.kubeApiserver132(42).draws();
    c.request(ServerConditions.Kind.READ);
    LatencyProfile.Draws d = LatencyProfile.kubeApiserver132(42).draws();
    assertThat(c.request(ServerConditions.Kind.POD_WRITE))
        .isEqualTo(d.request(ServerConditions.Kind.POD_WRITE));
  }

  @Test
  void requestsServedAreKeptWhileAProfileIsOnWatchesAside() {
    try (ServerConditions conditions = new ServerConditions()) {
      String pod = "/api/v1/namespaces/shop/pods/p";
      conditions.served("PATCH", pod, 5, 1, 2);
      assertThat(conditions.served()).isEmpty();
      conditions.latency(LatencyProfile.kubeApiserver132(7));
      conditions.served("PATCH", pod + "/status?fieldManager=x", 10, 16_000_000, 17_000_000);
      conditions.served("GET", pod, 20, 3_000_000, 2_000_000);
      conditions.served("GET", pod + "?watch=true", 30, 3_000_000, 9_000_000_000L);
      assertThat(conditions.served())
          .containsExactly(
              new EmbeddedKubernetes.Served(
                  "PATCH", pod + "/status", true, 10, 16_000_000, 17_000_000),
              new EmbeddedKubernetes.Served("GET", pod, false, 20, 3_000_000, 2_000_000));
    }
  }

  @Test
  void aRequestIsHeldItsDrawnLatencyLessWhatHandlingOneOfItsKindLatelyTook() {
    LatencyProfile.Spread twenty = LatencyProfile.Spread.of(20, 20.000001, 1.0);
    try (ServerConditions conditions = new ServerConditions()) {
      conditions.latency(new LatencyProfile(1, twenty, twenty, twenty, twenty, twenty));
      String pod = "/api/v1/namespaces/shop/pods/p";
      assertThat(conditions.holdNanos("PATCH", pod)).isBetween(19_999_000L, 20_001_000L);
      for (int i = 0; i < 100; i++) {
        conditions.handled("PATCH", pod, 8_000_000);
      }
      // The PATCH's answer comes about 20 ms after it arrived: 12 held, 8 handled.
      assertThat(conditions.holdNanos("PATCH", pod)).isBetween(11_900_000L, 12_100_000L);
      // Another kind keeps its own: a GET's handling is not a PATCH's.
      assertThat(conditions.holdNanos("GET", pod)).isBetween(19_999_000L, 20_001_000L);
      // Handling slower than the draw: no hold, never a negative one.
      for (int i = 0; i < 100; i++) {
        conditions.handled("PATCH", pod, 50_000_000);
      }
      assertThat(conditions.holdNanos("PATCH", pod)).isZero();
      // A watch's time is its life, not its handling: left out.
      for (int i = 0; i < 100; i++) {
        conditions.handled("GET", pod + "?watch=true", 5_000_000_000L);
      }
      assertThat(conditions.holdNanos("GET", pod)).isBetween(19_999_000L, 20_001_000L);
    }
  }

  @Test
  void withTheProfileAWriteLandsLateAndItsEventComesLaterStillInOrder() throws Exception {
    var client = kubernetes.client();
    client.pods().resource(Sandbox.readyPod("shop", "p", Map.of("app", "a"))).create();
    List<String> seen = new CopyOnWriteArrayList<>();
    List<Long> seenAt = new CopyOnWriteArrayList<>();
    try (Watch w =
        client
            .pods()
            .inNamespace("shop")
            .withName("p")
            .watch(
                new Watcher<Pod>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    String n = pod.getMetadata().getLabels().get("n");
                    if (n != null) {
                      seen.add(n);
                      seenAt.add(System.nanoTime());
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      kubernetes.latency(LatencyProfile.kubeApiserver132(3));
      long before = System.nanoTime();
      List<Long> sentAt = new ArrayList<>();
      List<Long> answeredAt = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        sentAt.add(System.nanoTime());
        client
            .pods()
            .inNamespace("shop")
            .withName("p")
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\"n\":\"" + i + "\"}}}");
        answeredAt.add(System.nanoTime());
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 20);
      for (int i = 0; i < 20; i++) {
        assertThat(seen.get(i)).isEqualTo(String.valueOf(i));
        // An event reaches a watcher at least 2 ms after its write landed, and after the answer.
        assertThat(seenAt.get(i) - sentAt.get(i)).isGreaterThanOrEqualTo(2_000_000);
      }
      // Each PATCH is on record with its draw (the profile's pod PATCH: 1 to 150 ms) and the time
      // from its arrival to its answer, for a benchmark to lay beside what its clients saw.
      List<EmbeddedKubernetes.Served> patches =
          kubernetes.served().stream().filter(s -> s.method().equals("PATCH")).toList();
      assertThat(patches).hasSize(20);
      assertThat(patches)
          .allSatisfy(
              s -> {
                assertThat(s.podWrite()).isTrue();
                assertThat(s.path()).isEqualTo("/api/v1/namespaces/shop/pods/p");
                assertThat(s.drawnNanos()).isBetween(1_000_000L, 150_000_000L);
                assertThat(s.servedNanos()).isPositive();
                assertThat(s.arrivedNanos()).isGreaterThan(before);
              });
      kubernetes.latency(null);
    }
  }

  /**
   * Writes that land close together (several writers at once) reach a watcher in the order the
   * server wrote them, as a real server's watch delivers them: late, never reordered. Two events
   * due at the same moment once went out in the order their timers fired, which let a watcher see a
   * promotion before the demotion written before it.
   */
  @Test
  void eventsOfWritesCloseTogetherArriveInTheOrderWritten() throws Exception {
    var client = kubernetes.client();
    int writers = 6;
    int writes = 40;
    for (int w = 0; w < writers; w++) {
      client.pods().resource(Sandbox.readyPod("shop", "p" + w, Map.of("app", "a"))).create();
    }
    List<Long> versions = new CopyOnWriteArrayList<>();
    try (Watch w =
        client
            .pods()
            .inNamespace("shop")
            .watch(
                new Watcher<Pod>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    if (pod.getMetadata().getLabels().containsKey("n")) {
                      versions.add(Long.parseLong(pod.getMetadata().getResourceVersion()));
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      kubernetes.latency(LatencyProfile.kubeApiserver132(11));
      ExecutorService pool = Executors.newFixedThreadPool(writers);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < writers; t++) {
          String pod = "p" + t;
          done.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < writes; i++) {
                      client
                          .pods()
                          .inNamespace("shop")
                          .withName(pod)
                          .patch(
                              PatchContext.of(PatchType.JSON_MERGE),
                              "{\"metadata\":{\"labels\":{\"n\":\"" + i + "\"}}}");
                    }
                  }));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> versions.size() == writers * writes);
      kubernetes.latency(null);
    }
    assertThat(versions).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void refusedListsAreAnswered429WithRetryAfterThenServed() throws Exception {
    kubernetes.refuseLists("leadergroups", 2);
    String list = "/apis/baton.dev/v1alpha1/namespaces/shop/leadergroups?limit=500";

    for (int i = 0; i < 2; i++) {
      HttpResponse<String> refused = get(list);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Retry-After")).contains("1");
      assertThat(refused.body())
          .contains("storage is (re)initializing")
          .contains("\"retryAfterSeconds\":1");
    }
    assertThat(get(list).statusCode()).isEqualTo(200);
    // Another resource, and one object by name, are not refused.
    assertThat(get("/api/v1/namespaces/shop/pods").statusCode()).isEqualTo(200);
    kubernetes.refuseLists("pods", 1);
    assertThat(get("/api/v1/namespaces/shop/pods/p").statusCode()).isEqualTo(404);
    assertThat(kubernetes.refusedLists("leadergroups")).hasSize(2);
  }

  @Test
  void aDroppedWatchFailsThenTheNextOneStreams() throws Exception {
    kubernetes.client().pods().resource(Sandbox.readyPod("shop", "p", Map.of())).create();
    kubernetes.dropWatches("pods", 1);
    String watch = "/api/v1/namespaces/shop/pods?fieldSelector=metadata.name%3Dp&watch=true";

    assertThatThrownBy(() -> get(watch)).isInstanceOf(IOException.class);
    HttpResponse<java.io.InputStream> open =
        http.send(request(watch), HttpResponse.BodyHandlers.ofInputStream());
    try (var body = open.body()) {
      assertThat(open.statusCode()).isEqualTo(200);
      assertThat(new String(body.readNBytes(2))).isEqualTo("{\"");
    }
    assertThat(kubernetes.droppedWatches("pods")).hasSize(1);
    assertThat(kubernetes.watchesAsked("pods")).hasSizeGreaterThanOrEqualTo(2);
  }

  private static double share(List<Double> values, double under) {
    return values.stream().filter(v -> v < under).count() / (double) values.size();
  }

  private HttpRequest request(String path) {
    return HttpRequest.newBuilder(URI.create(kubernetes.url()).resolve(path))
        .timeout(Duration.ofSeconds(10))
        .build();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(request(path), HttpResponse.BodyHandlers.ofString());
  }
}
