package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The two pod subresources a person's tools read, which the mock's CRUD mode does not serve: {@code
 * pods/log} (a container's log, as the kubelet would return it, from text the test wrote with
 * {@link #write}) and {@code pods/proxy} (an HTTP GET forwarded to the pod's IP and port, as the
 * API server forwards it: a test whose pod has IP 127.0.0.1 reaches a server it runs itself). Both
 * answer as a real server does where a client can tell: 404 for a missing pod, 400 for a missing or
 * unknown container name, the last {@code tailLines} lines, 503 for a pod without an IP.
 */
public final class PodSubresources extends Dispatcher {

  private static final Pattern LOG = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/log");
  private static final Pattern PROXY =
      Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/:]+):([0-9]+)/proxy(/.*)?");
  private static final ObjectMapper JSON = Serialization.jsonMapper();

  private final Dispatcher next;
  private final Map<String, String> logs = new ConcurrentHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  PodSubresources(Dispatcher next) {
    this.next = next;
  }

  /** Appends {@code text} to the log of one container of a pod. */
  public void write(String namespace, String pod, String container, String text) {
    logs.merge(namespace + "/" + pod + "/" + container, text, String::concat);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    if (!"GET".equals(request.getMethod())) {
      return next.dispatch(request);
    }
    String path = request.getPath();
    int q = path.indexOf('?');
    String bare = q < 0 ? path : path.substring(0, q);
    Map<String, String> query = query(q < 0 ? "" : path.substring(q + 1));
    Matcher log = LOG.matcher(bare);
    if (log.matches()) {
      return log(log.group(1), log.group(2), query);
    }
    Matcher proxy = PROXY.matcher(bare);
    if (proxy.matches()) {
      String rest = proxy.group(4) == null ? "/" : proxy.group(4);
      return proxy(
          proxy.group(1), proxy.group(2), proxy.group(3), rest + (q < 0 ? "" : path.substring(q)));
    }
    return next.dispatch(request);
  }

  private MockResponse log(String namespace, String name, Map<String, String> query) {
    JsonNode pod = pod(namespace, name);
    if (pod == null) {
      return status(404, "NotFound", "pods \"" + name + "\" not found");
    }
    List<String> containers = names(pod.path("spec").path("containers"));
    List<String> inits = names(pod.path("spec").path("initContainers"));
    String container = query.get("container");
    if (container == null) {
      if (containers.size() != 1) {
        return status(
            400,
            "BadRequest",
            "a container name must be specified for pod "
                + name
                + ", choose one of: "
                + containers
                + (inits.isEmpty() ? "" : " or one of the init containers: " + inits));
      }
      container = containers.get(0);
    } else if (!containers.contains(container) && !inits.contains(container)) {
      return status(400, "BadRequest", "container " + container + " is not valid for pod " + name);
    }
    String text = logs.getOrDefault(namespace + "/" + name + "/" + container, "");
    String tail = query.get("tailLines");
    if (tail != null) {
      List<String> lines = Arrays.asList(text.split("\n", -1));
      if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
        lines = lines.subList(0, lines.size() - 1);
      }
      int n = Integer.parseInt(tail);
      text =
          lines.isEmpty()
              ? ""
              : String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()))
                  + "\n";
    }
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("Content-Type", "text/plain")
        .setBody(text);
  }

  private MockResponse proxy(String namespace, String name, String port, String pathAndQuery) {
    JsonNode pod = pod(namespace, name);
    if (pod == null) {
      return status(404, "NotFound", "pods \"" + name + "\" not found");
    }
    String ip = pod.path("status").path("podIP").asText("");
    if (ip.isEmpty()) {
      return status(503, "ServiceUnavailable", "pod " + name + " has no IP");
    }
    try {
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(URI.create("http://" + ip + ":" + port + pathAndQuery))
                  .timeout(Duration.ofSeconds(5))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return new MockResponse()
          .setResponseCode(answer.statusCode())
          .setHeader(
              "Content-Type", answer.headers().firstValue("Content-Type").orElse("text/plain"))
          .setBody(answer.body());
    } catch (IOException e) {
      return status(503, "ServiceUnavailable", "error trying to reach service: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return status(503, "ServiceUnavailable", "interrupted");
    }
  }

  private JsonNode pod(String namespace, String name) {
    MockResponse stored =
        next.dispatch(
            StoreRequests.json(
                HttpMethod.GET, "/api/v1/namespaces/" + namespace + "/pods/" + name, null));
    if (stored.code() != 200 || stored.getBody() == null) {
      return null;
    }
    try {
      return JSON.readTree(new String(stored.getBody().getBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      return null;
    }
  }

  private static List<String> names(JsonNode containers) {
    List<String> out = new ArrayList<>();
    containers.forEach(c -> out.add(c.path("name").asText()));
    return out;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    for (String pair : raw.split("&")) {
      if (!pair.isEmpty()) {
        String[] kv = pair.split("=", 2);
        out.put(
            URLDecoder.decode(kv[0], StandardCharsets.UTF_8),
            kv.length > 1 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "");
      }
    }
    return out;
  }

  private static MockResponse status(int code, String reason, String message) {
    ObjectNode status = JSON.createObjectNode();
    status.put("kind", "Status").put("apiVersion", "v1").put("status", "Failure");
    status.put("message", message).put("reason", reason).put("code", code);
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", "application/json")
        .setBody(status.toString());
  }

  @Override
  public void shutdown() {
    next.shutdown();
  }
}
