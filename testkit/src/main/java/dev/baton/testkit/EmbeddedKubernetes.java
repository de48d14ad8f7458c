package dev.baton.testkit;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A Kubernetes API in this process: Fabric8's mock server in CRUD mode, which keeps objects,
 * resource versions, label selectors and watches, with Baton's CRDs installed. The demo and the
 * integration tests run the operator against it exactly as against a cluster. Objects are indexed
 * by name ({@link IndexedCrudDispatcher}), so a request for one object costs the same among 30,000
 * pods as among ten, as on a real API server. It also answers {@code /version} and API discovery
 * ({@link ApiDiscovery}), establishes the CRDs written to it ({@link CrdEstablisher}), takes
 * Secrets in protobuf ({@link ProtobufSecrets}) and strategic merge patches where they mean what a
 * merge patch means ({@link StrategicMergePatches}): what Helm needs to install, upgrade and
 * uninstall a chart here. Pods are created through the mutating webhooks stored here, and validated
 * as the API server validates them ({@link AdmissionWebhooks}). Pods' logs and proxy ({@link
 * PodSubresources}) serve kubectl baton's logs and report. A test can make it behave as a real API
 * server does where that matters to it ({@link #latency}, {@link #refuseLists}, {@link
 * #dropWatches}).
 */
public final class EmbeddedKubernetes implements KubernetesUnderTest {

  public static final List<String> CRD_FILES =
      List.of("leadergroups.baton.dev-v1.yml", "redislocks.baton.dev-v1.yml");

  /** The mock server logs every request at INFO; held here so the setting is not collected. */
  private static final java.util.logging.Logger MOCK_SERVER_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  private final KubernetesMockServer server;
  private final KubernetesCrudDispatcher crud;
  private final ServerConditions conditions;
  private final AdmissionWebhooks admission;
  private final KubernetesClient client;
  private final PodSubresources pods;

  private EmbeddedKubernetes(
      KubernetesMockServer server,
      KubernetesCrudDispatcher crud,
      ServerConditions conditions,
      AdmissionWebhooks admission,
      PodSubresources pods) {
    this.server = server;
    this.crud = crud;
    this.conditions = conditions;
    this.admission = admission;
    this.pods = pods;
    this.client = server.createClient(new JdkHttpClientFactory());
  }

  public static EmbeddedKubernetes start() {
    return start(UnaryOperator.identity());
  }

  /** Starts the API with its request handling wrapped, e.g. to count requests or inject faults. */
  public static EmbeddedKubernetes start(UnaryOperator<Dispatcher> wrap) {
    return start(new IndexedCrudDispatcher(), wrap);
  }

  /**
   * An API without Baton's CRDs, as a cluster is before anything installed them: for installing
   * them another way, e.g. with a Helm chart.
   */
  public static EmbeddedKubernetes startWithoutCrds() {
    return start(new IndexedCrudDispatcher(), UnaryOperator.identity(), false);
  }

  /** With the given store: the stock one, to compare the indexed one against. */
  static EmbeddedKubernetes start(KubernetesCrudDispatcher crud, UnaryOperator<Dispatcher> wrap) {
    return start(crud, wrap, true);
  }

  private static EmbeddedKubernetes start(
      KubernetesCrudDispatcher crud, UnaryOperator<Dispatcher> wrap, boolean withCrds) {
    PodSubresources pods =
        new PodSubresources(
            new ProtobufSecrets(
                new StrategicMergePatches(
                    new StrictPatches(
                        new ApiDiscovery(
                            new CrdEstablisher(new ListPaging(crud)),
                            () -> body(crud.handleGet(CRD_LIST)))))));
    AdmissionWebhooks admission = new AdmissionWebhooks(pods);
    Dispatcher api = admission;
    ServerConditions conditions = new ServerConditions();
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(),
            new KubeHttpServer(conditions),
            new HashMap<>(),
            new RecordingDispatcher(wrap.apply(api)),
            false);
    server.init();
    EmbeddedKubernetes k = new EmbeddedKubernetes(server, crud, conditions, admission, pods);
    if (withCrds) {
      for (String file : CRD_FILES) {
        k.client.apiextensions().v1().customResourceDefinitions().resource(crd(file)).create();
      }
    }
    return k;
  }

  private static final String CRD_LIST = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

  private static String body(MockResponse response) {
    return response.getBody() == null
        ? "{}"
        : new String(response.getBody().getBytes(), StandardCharsets.UTF_8);
  }

  /**
   * From now on every request takes as long as {@code profile} draws for its kind before it is
   * handled, and every watch event reaches its watcher as late as the profile says, in order; null
   * switches it off (a watch event already held back still arrives late).
   */
  public EmbeddedKubernetes latency(LatencyProfile profile) {
    conditions.latency(profile);
    return this;
  }

  /**
   * The next {@code times} lists of {@code plural} (as in its URL: "leadergroups", "pods") are
   * answered 429 "storage is (re)initializing" with {@code Retry-After: 1}, as a real API server
   * answers them for about a second after the CRD was created or the server restarted.
   */
  public EmbeddedKubernetes refuseLists(String plural, int times) {
    conditions.refuseLists(plural, times);
    return this;
  }

  /**
   * The next {@code times} watch requests on {@code plural} fail: their connection is cut before an
   * answer, as when a new pod's first connection to the API server times out.
   */
  public EmbeddedKubernetes dropWatches(String plural, int times) {
    conditions.dropWatches(plural, times);
    return this;
  }

  /**
   * One request the server answered under a latency profile: the time the profile drew for it, and
   * the time from its arrival to its answer (its hold, then the mock's handling), in nanoseconds.
   * Where the second is longer than the first, the mock took longer than the real server would.
   *
   * @param podWrite a write of a pod or its status (the profile's pod PATCH)
   * @param arrivedNanos when it arrived ({@link System#nanoTime}), for a client in the same process
   *     to lay beside its own sending and answer
   */
  public record Served(
      String method,
      String path,
      boolean podWrite,
      long arrivedNanos,
      long drawnNanos,
      long servedNanos) {}

  /** The requests served since the latency profile was set, watches aside; the last 100,000. */
  public List<Served> served() {
    return conditions.served();
  }

  /** When (System.nanoTime) each list of {@code plural} was refused, in order. */
  public List<Long> refusedLists(String plural) {
    return times(ServerConditions.LIST_REFUSED, plural);
  }

  /** When each watch on {@code plural} was asked for, dropped or not, in order. */
  public List<Long> watchesAsked(String plural) {
    return times(ServerConditions.WATCH_ASKED, plural);
  }

  /** When each dropped watch on {@code plural} was asked for, in order. */
  public List<Long> droppedWatches(String plural) {
    return times(ServerConditions.WATCH_DROPPED, plural);
  }

  private List<Long> times(String what, String plural) {
    return conditions.seen().stream()
        .filter(s -> s.what().equals(what) && s.plural().equals(plural))
        .map(ServerConditions.Seen::atNanos)
        .toList();
  }

  /**
   * Stores objects as a create would (uid, resourceVersion, creation time), without a request each
   * and without watch events: for a benchmark's tens of thousands of pods before anything watches.
   * The mock's create checks every stored object for a clash, so 30,000 creates would take the
   * better part of an hour.
   */
  public void preload(List<Pod> pods) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    for (Pod pod : pods) {
      pod.getMetadata().setUid(UUID.randomUUID().toString());
      pod.getMetadata().setCreationTimestamp(now);
      pod.getMetadata().setResourceVersion(String.valueOf(crud.requestResourceVersion()));
      String path = "/api/v1/namespaces/" + pod.getMetadata().getNamespace() + "/pods";
      String json = Serialization.asJson(pod);
      // What the mock's own create does once it found no clash.
      crud.processEvent(
          path,
          crud.getKey(path),
          null,
          Serialization.unmarshal(json, GenericKubernetesResource.class),
          json);
    }
  }

  /** A CRD as generated into the jar by the build. */
  public static CustomResourceDefinition crd(String file) {
    try (InputStream in =
        EmbeddedKubernetes.class.getResourceAsStream("/META-INF/fabric8/" + file)) {
      if (in == null) {
        throw new IllegalStateException("CRD " + file + " is not on the classpath");
      }
      return Serialization.unmarshal(in, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Where the Service {@code namespace/name}, port {@code port}, that a
   * MutatingWebhookConfiguration names is reached: this API calls mutating webhooks on pod creation
   * as kube-apiserver does ({@link AdmissionWebhooks}), and has no cluster network to find a
   * Service's pods by.
   */
  public void routeService(String namespace, String name, int port, java.net.InetSocketAddress to) {
    admission.route(namespace, name, port, to);
  }

  /** The pods' logs and proxy: a test writes a container's log here. */
  public PodSubresources podSubresources() {
    return pods;
  }

  /** A client of this API, as the operator would have from a kubeconfig. */
  @Override
  public KubernetesClient client() {
    return client;
  }

  /** The API's URL, for an operator in another process (KUBERNETES_MASTER). */
  public String url() {
    return client.getMasterUrl().toString();
  }

  @Override
  public KubernetesClient newClient() {
    return server.createClient(new JdkHttpClientFactory());
  }

  /** Fabric8's client configuration from the environment: this URL, and nothing else. */
  @Override
  public Map<String, String> processEnvironment() {
    return Map.of(
        "KUBERNETES_MASTER", url(),
        "KUBERNETES_AUTH_TRYKUBECONFIG", "false",
        "KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false",
        "KUBERNETES_TRUST_CERTIFICATES", "true");
  }

  @Override
  public boolean real() {
    return false;
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
    conditions.close();
  }
}
