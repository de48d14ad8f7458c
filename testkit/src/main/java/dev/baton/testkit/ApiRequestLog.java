package dev.baton.testkit;

import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Every request a Baton operator made to an embedded API server, told apart from the tests' own
 * requests by the user agent the operator sends ({@code baton-operator/<identity>}), and the
 * environment each operator was started with. The embedded API enforces no RBAC, so the tests check
 * these against the RBAC the Helm chart renders for that environment instead.
 *
 * <p>Requests made on behalf of a person (kubectl's {@code --as}, the {@code Impersonate-User}
 * header) are kept apart, with the user and groups a real API server would authorize them as: the
 * tests hold kubectl baton's requests against the roles the chart gives people.
 *
 * <p>Off until {@link #start()}: the demo and the benchmarks keep nothing.
 */
public final class ApiRequestLog {

  /** How the operator's requests begin their User-Agent header. */
  public static final String OPERATOR_AGENT = "baton-operator/";

  public static final String IDENTITY = "BATON_LEADER_ELECTION_IDENTITY";

  /** One request: the operator that sent it, the method, and the path with its query. */
  public record Request(String operator, String method, String path) {}

  /** One request sent as another user: who, with which groups, the method and path with query. */
  public record Impersonated(String user, List<String> groups, String method, String path) {}

  private static final Queue<Request> requests = new ConcurrentLinkedQueue<>();
  private static final Queue<Impersonated> impersonated = new ConcurrentLinkedQueue<>();
  private static final Map<String, Map<String, String>> environments = new ConcurrentHashMap<>();
  private static volatile boolean recording;

  private ApiRequestLog() {}

  public static void start() {
    recording = true;
  }

  /** Called by the embedded API for every request it receives. */
  static void received(RecordedRequest request) {
    if (!recording) {
      return;
    }
    String user = request.getHeader("Impersonate-User");
    if (user != null) {
      List<String> groups = request.getHeaders().headers("Impersonate-Group");
      impersonated.add(
          new Impersonated(
              user,
              groups == null ? List.of() : List.copyOf(groups),
              request.getMethod(),
              request.getPath()));
    }
    String agent = request.getHeader("User-Agent");
    if (agent != null && agent.startsWith(OPERATOR_AGENT)) {
      requests.add(
          new Request(
              agent.substring(OPERATOR_AGENT.length()), request.getMethod(), request.getPath()));
    }
  }

  /** An operator is being started with this environment; its identity is in it. */
  public static void operatorStarting(Map<String, String> env) {
    String identity = env.get(IDENTITY);
    if (recording && identity != null) {
      environments.put(identity, Map.copyOf(env));
    }
  }

  /**
   * The environment of the operator that sent {@code request}, or null if it was not announced. An
   * operator without leader election adds "/" and a suffix of its own to its identity.
   */
  public static Map<String, String> environmentOf(Request request) {
    String agent = request.operator();
    Map<String, String> env = environments.get(agent);
    int slash = agent.lastIndexOf('/');
    while (env == null && slash > 0) {
      agent = agent.substring(0, slash);
      env = environments.get(agent);
      slash = agent.lastIndexOf('/');
    }
    return env;
  }

  /** The requests received since the last call, oldest first. */
  public static List<Request> drain() {
    List<Request> out = new ArrayList<>();
    for (Request r; (r = requests.poll()) != null; ) {
      out.add(r);
    }
    return out;
  }

  /** The requests sent as another user since the last call, oldest first. */
  public static List<Impersonated> drainImpersonated() {
    List<Impersonated> out = new ArrayList<>();
    for (Impersonated r; (r = impersonated.poll()) != null; ) {
      out.add(r);
    }
    return out;
  }
}
