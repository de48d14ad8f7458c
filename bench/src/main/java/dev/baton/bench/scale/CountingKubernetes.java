package dev.baton.bench.scale;

import dev.baton.testkit.EmbeddedKubernetes;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The embedded Kubernetes API ({@link EmbeddedKubernetes}: Fabric8's mock server in CRUD mode with
 * Baton's CRDs) with every request counted by method and resource, so the benchmark can say how
 * many requests the operator makes.
 */
final class CountingKubernetes implements AutoCloseable {

  private final EmbeddedKubernetes kube;
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  private CountingKubernetes() {
    this.kube = EmbeddedKubernetes.start(Counting::new);
  }

  static CountingKubernetes start() {
    return new CountingKubernetes();
  }

  /** The URL a client in another process uses (plain HTTP, no credentials). */
  String url() {
    return kube.url();
  }

  EmbeddedKubernetes embedded() {
    return kube;
  }

  KubernetesClient newClient() {
    return kube.newClient();
  }

  /** Requests so far, by "METHOD resource[/subresource][ watch]". */
  Map<String, Long> requests() {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  static long total(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  static Map<String, Long> minus(Map<String, Long> later, Map<String, Long> earlier) {
    Map<String, Long> out = new TreeMap<>();
    later.forEach(
        (k, v) -> {
          long d = v - earlier.getOrDefault(k, 0L);
          if (d != 0) {
            out.put(k, d);
          }
        });
    return out;
  }

  @Override
  public void close() {
    kube.close();
  }

  /** Counts each request, then hands it to the CRUD dispatcher. */
  private final class Counting extends Dispatcher {
    private final Dispatcher crud;

    Counting(Dispatcher crud) {
      this.crud = crud;
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      counts
          .computeIfAbsent(key(request.getMethod(), request.getPath()), k -> new LongAdder())
          .increment();
      return crud.dispatch(request);
    }

    @Override
    public void shutdown() {
      crud.shutdown();
    }
  }

  /** "PUT pods", "PATCH leadergroups/status", "GET pods watch", from method and path. */
  static String key(String method, String path) {
    int q = path.indexOf('?');
    String query = q < 0 ? "" : path.substring(q + 1);
    String[] parts = (q < 0 ? path : path.substring(0, q)).replaceAll("^/+", "").split("/");
    // /api/v1/... or /apis/<group>/<version>/...
    int start = parts.length > 0 && parts[0].equals("apis") ? 3 : 2;
    if (parts.length > start + 1 && parts[start].equals("namespaces")) {
      start += 2;
    }
    String resource = parts.length > start ? parts[start] : String.join("/", parts);
    if (parts.length > start + 2) {
      resource += "/" + parts[start + 2];
    }
    boolean watch = query.contains("watch=true") || query.contains("watch=1");
    return method + " " + resource + (watch ? " watch" : "");
  }
}
