package dev.baton.operator.install;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A request to the Kubernetes API as its authorizer sees it: the attributes the API server's
 * request-info resolver derives from the method and URL. A list or watch with the field selector
 * {@code metadata.name=<name>} names that object, as it does for RBAC's {@code resourceNames}.
 *
 * @param resource null for a non-resource request (discovery, /version)
 * @param namespace empty for a cluster-scoped request, or a list across all namespaces
 * @param name empty when the request names no object
 */
record ApiRequest(
    String verb,
    String group,
    String resource,
    String subresource,
    String namespace,
    String name,
    String path) {

  private static final Set<String> TRUE = Set.of("true", "1");

  static ApiRequest parse(String method, String pathAndQuery) {
    int q = pathAndQuery.indexOf('?');
    String rawPath = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
    Map<String, String> query = query(q < 0 ? null : pathAndQuery.substring(q + 1));
    List<String> parts =
        Arrays.stream(rawPath.split("/"))
            .filter(s -> !s.isEmpty())
            .map(ApiRequest::decode)
            .toList();
    String group;
    List<String> rest;
    if (parts.size() >= 2 && parts.get(0).equals("api")) {
      group = "";
      rest = parts.subList(2, parts.size());
    } else if (parts.size() >= 3 && parts.get(0).equals("apis")) {
      group = parts.get(1);
      rest = parts.subList(3, parts.size());
    } else {
      return nonResource(method, rawPath);
    }
    if (rest.isEmpty()) {
      return nonResource(method, rawPath);
    }
    boolean legacyWatch = rest.get(0).equals("watch");
    if (legacyWatch) {
      rest = rest.subList(1, rest.size());
    }
    String namespace = "";
    if (rest.size() >= 2 && rest.get(0).equals("namespaces")) {
      namespace = rest.get(1);
      // "/namespaces/<name>" is the namespace itself; anything below it is inside it.
      rest = rest.size() == 2 ? List.of("namespaces", namespace) : rest.subList(2, rest.size());
      if (rest.get(0).equals("namespaces")) {
        namespace = "";
      }
    }
    String resource = rest.get(0);
    String name = rest.size() > 1 ? rest.get(1) : "";
    String subresource = rest.size() > 2 ? rest.get(2) : "";
    String verb =
        switch (method) {
          case "GET", "HEAD" ->
              name.isEmpty()
                  ? (legacyWatch || TRUE.contains(query.getOrDefault("watch", ""))
                      ? "watch"
                      : "list")
                  : (legacyWatch ? "watch" : "get");
          case "POST" -> "create";
          case "PUT" -> "update";
          case "PATCH" -> "patch";
          case "DELETE" -> name.isEmpty() ? "deletecollection" : "delete";
          default -> method.toLowerCase();
        };
    if ((verb.equals("list") || verb.equals("watch")) && name.isEmpty()) {
      String selector = query.getOrDefault("fieldSelector", "");
      for (String term : selector.split(",")) {
        String[] kv = term.split("==?", 2);
        if (kv.length == 2 && kv[0].trim().equals("metadata.name")) {
          name = kv[1].trim();
        }
      }
    }
    return new ApiRequest(verb, group, resource, subresource, namespace, name, pathAndQuery);
  }

  private static ApiRequest nonResource(String method, String path) {
    return new ApiRequest(method.toLowerCase(), "", null, "", "", "", path);
  }

  boolean isResourceRequest() {
    return resource != null;
  }

  /** "resource" or "resource/subresource", as RBAC rules name it. */
  String resourceAndSubresource() {
    return subresource.isEmpty() ? resource : resource + "/" + subresource;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null) {
      return out;
    }
    for (String pair : raw.split("&")) {
      String[] kv = pair.split("=", 2);
      out.put(decode(kv[0]), kv.length > 1 ? decode(kv[1]) : "");
    }
    return out;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  /** The request without the object's name and namespace: what kind of thing the operator does. */
  String shape() {
    if (!isResourceRequest()) {
      return verb + " " + path.replaceAll("\\?.*", "");
    }
    boolean byName = !name.isEmpty() && (verb.equals("list") || verb.equals("watch"));
    return verb
        + " "
        + (group.isEmpty() ? "core" : group)
        + "/"
        + resourceAndSubresource()
        + (namespace.isEmpty() ? " cluster-wide" : " in a namespace")
        + (byName ? " by name" : "");
  }

  @Override
  public String toString() {
    if (!isResourceRequest()) {
      return verb + " " + path;
    }
    return verb
        + " "
        + (group.isEmpty() ? "core" : group)
        + "/"
        + resourceAndSubresource()
        + (name.isEmpty() ? "" : " " + name)
        + (namespace.isEmpty() ? " (cluster-wide)" : " in " + namespace);
  }
}
