package dev.baton.client;

import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLParameters;

/**
 * The HTTP side of {@link PodWatch}'s one pod: the client for its API server and the requests that
 * read and watch the pod. Holds nothing between requests; the token is asked for at each one.
 */
final class PodRequests {

  /** How long the server keeps one watch open before the next is asked for. */
  private static final int WATCH_SECONDS = 300;

  private final PodWatch.Target target;

  PodRequests(PodWatch.Target target) {
    this.target = target;
  }

  /** A client for the target's API server that gives up connecting after {@code timeout}. */
  HttpClient client(Duration timeout) {
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(timeout);
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
    return b.build();
  }

  /** A read of the pod. */
  HttpRequest.Builder read() {
    return request("/api/v1/namespaces/" + enc(target.namespace()) + "/pods/" + enc(target.pod()));
  }

  /** A watch on the pod alone (a field selector on its name), bookmarks included. */
  HttpRequest watch() {
    String query =
        "?fieldSelector="
            + enc("metadata.name=" + target.pod())
            + "&watch=true&allowWatchBookmarks=true&timeoutSeconds="
            + WATCH_SECONDS;
    return request("/api/v1/namespaces/" + enc(target.namespace()) + "/pods" + query).build();
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
}
