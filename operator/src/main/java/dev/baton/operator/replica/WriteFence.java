package dev.baton.operator.replica;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * Refuses every API request that is not a read while this replica may not act, at the HTTP client
 * every reconciler writes through: one place, so no write path can forget the check. Reads, lists
 * and watches go on, which keeps a standby's caches warm.
 */
public final class WriteFence implements Interceptor {

  /** Thrown instead of sending a write this replica may not make. */
  public static final class Closed extends IllegalStateException {
    Closed(String method, String path) {
      super("not the active operator replica: " + method + " " + path + " not sent");
    }
  }

  private final ReplicaRole role;

  public WriteFence(ReplicaRole role) {
    this.role = role;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    if (!"GET".equals(request.method()) && !role.mayAct()) {
      throw new Closed(request.method(), request.uri().getPath());
    }
  }
}
