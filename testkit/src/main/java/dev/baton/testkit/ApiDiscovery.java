package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a real API server answers besides objects, which the mock server's CRUD mode does not:
 * {@code /version} and API discovery ({@code /api}, {@code /api/v1}, {@code /apis}, {@code
 * /apis/<group>}, {@code /apis/<group>/<version>}), as clients such as Helm and kubectl read them
 * to map kinds to resources. Built-in resources come from a table of the ones Baton's chart, its
 * operator and its tests use (with the kinds, scopes, verbs, short names and categories a
 * Kubernetes 1.30 server reports for them; not every resource a cluster has); custom resources come
 * from the stored CustomResourceDefinitions that are established, as the apiextensions server does
 * it. Discovery is served in its plain JSON form (APIVersions, APIGroupList, APIResourceList),
 * which a server answers when asked for it or with aggregated discovery off; clients fall back to
 * it.
 *
 * <p>It also names a list's kind as a real server does ({@code SecretList}, not the mock's {@code
 * List}): typed clients (client-go's, which Helm reads its release Secrets with) refuse a {@code
 * List} where they expect a {@code SecretList}.
 */
final class ApiDiscovery extends Dispatcher {

  /** The version this API reports: within the chart's kubeVersion and the CRDs' CEL needs. */
  static final String GIT_VERSION = "v1.30.0";

  private static final ObjectMapper JSON = Serialization.jsonMapper();

  private final Dispatcher next;
  private final Supplier<String> storedCrds;

  /**
   * @param storedCrds the stored CustomResourceDefinitions as a list's JSON, read from the store
   *     itself (not through this API, so discovery leaves no request behind)
   */
  ApiDiscovery(Dispatcher next, Supplier<String> storedCrds) {
    this.next = next;
    this.storedCrds = storedCrds;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    if (!"GET".equals(request.getMethod())) {
      return next.dispatch(request);
    }
    String path = request.getPath();
    int q = path.indexOf('?');
    if (q >= 0) {
      path = path.substring(0, q);
    }
    if (path.endsWith("/") && path.length() > 1) {
      path = path.substring(0, path.length() - 1);
    }
    String[] parts = path.substring(1).split("/");
    Object answer =
        switch (parts.length) {
          case 1 ->
              switch (parts[0]) {
                case "version" -> version();
                case "api" -> apiVersions();
                case "apis" -> groupList();
                default -> null;
              };
          case 2 ->
              parts[0].equals("api") && parts[1].equals("v1")
                  ? resourceList("v1")
                  : parts[0].equals("apis") ? group(parts[1]) : null;
          case 3 -> parts[0].equals("apis") ? resourceList(parts[1] + "/" + parts[2]) : null;
          default -> null;
        };
    if (answer == null) {
      return listKindNamed(path, request.getPath().contains("watch=true"), next.dispatch(request));
    }
    if (answer == NOT_FOUND) {
      return new MockResponse()
          .setResponseCode(404)
          .setHeader("Content-Type", "application/json")
          .setBody(
              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                  + "\"message\":\"the server could not find the requested resource\","
                  + "\"reason\":\"NotFound\",\"details\":{},\"code\":404}");
    }
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("Content-Type", "application/json")
        .setBody(answer.toString());
  }

  @Override
  public void shutdown() {
    next.shutdown();
  }

  private static final Object NOT_FOUND = new Object();

  private static final Pattern LIST_HEAD =
      Pattern.compile(
          "^\\{\\s*\"apiVersion\"\\s*:\\s*\"[^\"]*\"\\s*,\\s*\"kind\"\\s*:\\s*\"List\"");

  /** A collection's answer with its kind as a real server names it: the resource's kind + List. */
  private MockResponse listKindNamed(String path, boolean watch, MockResponse response) {
    if (watch || response.code() != 200 || response.getBody() == null) {
      return response;
    }
    String[] parts = path.substring(1).split("/");
    int base = parts[0].equals("api") ? 2 : parts[0].equals("apis") ? 3 : -1;
    if (base < 0 || parts.length <= base) {
      return response;
    }
    int rest = parts.length - base;
    String resource =
        rest == 1
            ? parts[base]
            : rest == 3 && parts[base].equals("namespaces") ? parts[base + 2] : null;
    if (resource == null) {
      return response;
    }
    String body = new String(response.getBody().getBytes(), StandardCharsets.UTF_8);
    Matcher head = LIST_HEAD.matcher(body);
    if (!head.lookingAt()) {
      return response;
    }
    String groupVersion = base == 2 ? "v1" : parts[1] + "/" + parts[2];
    String kind = kindOf(groupVersion, resource);
    if (kind == null) {
      return response;
    }
    String named =
        body.substring(0, head.end() - "List\"".length())
            + kind
            + "List\""
            + body.substring(head.end());
    return response.setBody(named);
  }

  private static ObjectNode version() {
    ObjectNode v = JSON.createObjectNode();
    v.put("major", "1");
    v.put("minor", "30");
    v.put("gitVersion", GIT_VERSION);
    v.put("gitCommit", "7c48c2bd72b9bf5c44d21d7338cc7bea77d0ad2a");
    v.put("gitTreeState", "clean");
    v.put("buildDate", "2024-04-17T17:27:03Z");
    v.put("goVersion", "go1.22.2");
    v.put("compiler", "gc");
    v.put("platform", "linux/amd64");
    return v;
  }

  private static ObjectNode apiVersions() {
    ObjectNode v = JSON.createObjectNode();
    v.put("kind", "APIVersions");
    v.putArray("versions").add("v1");
    ObjectNode address = v.putArray("serverAddressByClientCIDRs").addObject();
    address.put("clientCIDR", "0.0.0.0/0");
    address.put("serverAddress", "127.0.0.1:6443");
    return v;
  }

  /**
   * A resource's kind: from the table for a built-in group version, else from the stored CRDs (read
   * only then: listing them scans the whole store).
   */
  private String kindOf(String groupVersion, String resource) {
    List<BuiltInResources.Resource> builtIn = BuiltInResources.BY_GROUP_VERSION.get(groupVersion);
    if (builtIn != null) {
      return builtIn.stream()
          .filter(r -> r.name().equals(resource))
          .map(BuiltInResources.Resource::kind)
          .findFirst()
          .orElse(null);
    }
    for (JsonNode r : groupVersions().getOrDefault(groupVersion, List.of())) {
      if (r.path("name").asText().equals(resource)) {
        return r.path("kind").asText();
      }
    }
    return null;
  }

  /** Every group version this API serves, "v1" (the core group) first, then by group. */
  private Map<String, List<ObjectNode>> groupVersions() {
    Map<String, List<ObjectNode>> all = new LinkedHashMap<>();
    BuiltInResources.BY_GROUP_VERSION.forEach(
        (gv, resources) -> all.put(gv, resources.stream().map(r -> json(r)).toList()));
    for (JsonNode crd : establishedCrds()) {
      String group = crd.path("spec").path("group").asText();
      for (JsonNode version : crd.path("spec").path("versions")) {
        if (version.path("served").asBoolean()) {
          String gv = group + "/" + version.path("name").asText();
          List<ObjectNode> resources = new ArrayList<>(all.getOrDefault(gv, List.of()));
          resources.addAll(customResources(crd, version));
          all.put(gv, resources);
        }
      }
    }
    return all;
  }

  private ObjectNode groupList() {
    ObjectNode list = JSON.createObjectNode();
    list.put("kind", "APIGroupList");
    list.put("apiVersion", "v1");
    ArrayNode groups = list.putArray("groups");
    Map<String, List<String>> versionsByGroup = new LinkedHashMap<>();
    for (String gv : groupVersions().keySet()) {
      int slash = gv.indexOf('/');
      if (slash > 0) {
        versionsByGroup
            .computeIfAbsent(gv.substring(0, slash), g -> new ArrayList<>())
            .add(gv.substring(slash + 1));
      }
    }
    versionsByGroup.forEach((g, versions) -> groups.add(group(g, versions)));
    return list;
  }

  private Object group(String name) {
    List<String> versions = new ArrayList<>();
    for (String gv : groupVersions().keySet()) {
      if (gv.startsWith(name + "/")) {
        versions.add(gv.substring(name.length() + 1));
      }
    }
    if (versions.isEmpty()) {
      return NOT_FOUND;
    }
    ObjectNode group = group(name, versions);
    group.put("kind", "APIGroup");
    group.put("apiVersion", "v1");
    return group;
  }

  private static ObjectNode group(String name, List<String> versions) {
    ObjectNode group = JSON.createObjectNode();
    group.put("name", name);
    ArrayNode list = group.putArray("versions");
    for (String v : versions) {
      list.addObject().put("groupVersion", name + "/" + v).put("version", v);
    }
    // One version per group here, so the preferred one is that one.
    group
        .putObject("preferredVersion")
        .put("groupVersion", name + "/" + versions.get(0))
        .put("version", versions.get(0));
    return group;
  }

  private Object resourceList(String groupVersion) {
    List<ObjectNode> resources = groupVersions().get(groupVersion);
    if (resources == null) {
      return NOT_FOUND;
    }
    ObjectNode list = JSON.createObjectNode();
    list.put("kind", "APIResourceList");
    list.put("apiVersion", "v1");
    list.put("groupVersion", groupVersion);
    ArrayNode items = list.putArray("resources");
    resources.forEach(items::add);
    return list;
  }

  private static ObjectNode json(BuiltInResources.Resource r) {
    ObjectNode o = JSON.createObjectNode();
    o.put("name", r.name());
    o.put("singularName", r.name().contains("/") ? "" : r.kind().toLowerCase());
    o.put("namespaced", r.namespaced());
    o.put("kind", r.kind());
    r.verbs().forEach(o.putArray("verbs")::add);
    if (!r.shortNames().isEmpty()) {
      r.shortNames().forEach(o.putArray("shortNames")::add);
    }
    if (!r.categories().isEmpty()) {
      r.categories().forEach(o.putArray("categories")::add);
    }
    return o;
  }

  /** A CRD's resource and subresources in one served version, from its accepted names. */
  private static List<ObjectNode> customResources(JsonNode crd, JsonNode version) {
    JsonNode names = crd.path("status").path("acceptedNames");
    boolean namespaced = "Namespaced".equals(crd.path("spec").path("scope").asText());
    String plural = names.path("plural").asText();
    String kind = names.path("kind").asText();
    List<ObjectNode> out = new ArrayList<>();
    ObjectNode r = JSON.createObjectNode();
    r.put("name", plural);
    r.put("singularName", names.path("singular").asText(kind.toLowerCase()));
    r.put("namespaced", namespaced);
    r.put("kind", kind);
    BuiltInResources.CUSTOM_VERBS.forEach(r.putArray("verbs")::add);
    if (names.path("shortNames").size() > 0) {
      r.set("shortNames", names.path("shortNames").deepCopy());
    }
    if (names.path("categories").size() > 0) {
      r.set("categories", names.path("categories").deepCopy());
    }
    out.add(r);
    JsonNode subresources = version.path("subresources");
    if (subresources.has("status")) {
      ObjectNode s = JSON.createObjectNode();
      s.put("name", plural + "/status");
      s.put("singularName", "");
      s.put("namespaced", namespaced);
      s.put("kind", kind);
      BuiltInResources.STATUS_VERBS.forEach(s.putArray("verbs")::add);
      out.add(s);
    }
    if (subresources.has("scale")) {
      ObjectNode s = JSON.createObjectNode();
      s.put("name", plural + "/scale");
      s.put("singularName", "");
      s.put("namespaced", namespaced);
      s.put("group", "autoscaling");
      s.put("version", "v1");
      s.put("kind", "Scale");
      BuiltInResources.STATUS_VERBS.forEach(s.putArray("verbs")::add);
      out.add(s);
    }
    return out;
  }

  /** The stored CRDs the apiextensions server would serve: those established. */
  private List<JsonNode> establishedCrds() {
    List<JsonNode> out = new ArrayList<>();
    try {
      for (JsonNode crd : JSON.readTree(storedCrds.get()).path("items")) {
        for (JsonNode c : crd.path("status").path("conditions")) {
          if ("Established".equals(c.path("type").asText())
              && "True".equals(c.path("status").asText())) {
            out.add(crd);
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException("stored CRDs unreadable", e);
    }
    return out;
  }
}
