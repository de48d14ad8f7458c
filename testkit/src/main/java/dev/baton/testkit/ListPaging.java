package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * List pagination (`limit` and `continue`) as a real API server does it, which the mock server's
 * CRUD mode ignores: a list with a limit answers that many items and a continue token, and the next
 * pages come from the same snapshot. Without it, an informer that lists in pages would still get a
 * 30,000-pod namespace in one response here, which no real cluster sends.
 */
final class ListPaging extends Dispatcher {

  private static final ObjectMapper JSON = Serialization.jsonMapper();

  private final Dispatcher crud;

  /** A listing being paged: its items and the resourceVersion it was taken at. */
  private record Snapshot(ArrayNode items, String resourceVersion) {}

  private final Map<String, Snapshot> snapshots = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();

  ListPaging(Dispatcher crud) {
    this.crud = crud;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String path = request.getPath();
    int q = path.indexOf('?');
    if (!"GET".equals(request.getMethod()) || q < 0) {
      return crud.dispatch(request);
    }
    String limitText = null;
    String token = null;
    boolean watch = false;
    for (String pair : path.substring(q + 1).split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value =
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      switch (key) {
        case "limit" -> limitText = value;
        case "continue" -> token = value;
        case "watch" -> watch = value.equals("true") || value.equals("1");
        default -> {}
      }
    }
    if (watch || limitText == null || limitText.isEmpty()) {
      return crud.dispatch(request);
    }
    int limit = Integer.parseInt(limitText);
    try {
      ObjectNode page;
      ArrayNode items;
      String resourceVersion;
      String id;
      int from;
      MockResponse response = null;
      if (token == null || token.isEmpty()) {
        response = crud.dispatch(request);
        if (response.code() != 200 || response.getBody() == null) {
          return response;
        }
        JsonNode list = JSON.readTree(response.getBody().getBytes());
        if (!(list instanceof ObjectNode o) || !(o.get("items") instanceof ArrayNode all)) {
          return response;
        }
        page = o;
        items = all;
        resourceVersion = o.path("metadata").path("resourceVersion").asText(null);
        id = Long.toString(ids.incrementAndGet());
        from = 0;
      } else {
        int colon = token.indexOf(':');
        id = token.substring(0, colon);
        from = Integer.parseInt(token.substring(colon + 1));
        Snapshot snapshot = snapshots.get(id);
        if (snapshot == null) {
          return new MockResponse().setResponseCode(410).setBody(expired());
        }
        items = snapshot.items();
        resourceVersion = snapshot.resourceVersion();
        page = JSON.createObjectNode();
        page.put("apiVersion", "v1");
        page.put("kind", "List");
        ObjectNode meta = page.putObject("metadata");
        if (resourceVersion != null) {
          meta.put("resourceVersion", resourceVersion);
        }
      }
      int to = Math.min(items.size(), from + limit);
      ArrayNode slice = JSON.createArrayNode();
      for (int i = from; i < to; i++) {
        slice.add(items.get(i));
      }
      ObjectNode metadata =
          page.get("metadata") instanceof ObjectNode m ? m : page.putObject("metadata");
      if (to < items.size()) {
        snapshots.put(id, new Snapshot(items, resourceVersion));
        metadata.put("continue", id + ":" + to);
        metadata.put("remainingItemCount", items.size() - to);
      } else {
        snapshots.remove(id);
        metadata.remove("continue");
        metadata.remove("remainingItemCount");
      }
      page.set("items", slice);
      MockResponse out = response == null ? new MockResponse().setResponseCode(200) : response;
      out.setHeader("Content-Type", "application/json");
      return out.setBody(JSON.writeValueAsBytes(page));
    } catch (IOException | RuntimeException e) {
      return crud.dispatch(request);
    }
  }

  private static String expired() {
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Expired\","
        + "\"code\":410,\"message\":\"the continue token has expired\"}";
  }

  @Override
  public void shutdown() {
    crud.shutdown();
  }
}
