package dev.baton.operator.install;

import dev.baton.testkit.ApiRequestLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test in which the operator made a request to the API server that the Helm chart's RBAC
 * would not allow. Registered for every test of this module (junit-platform.properties), so every
 * integration test, with or without leader election, with all namespaces or a few, is also a test
 * of the chart's RBAC: each request is checked against the chart rendered with the values that
 * match the environment the operator was started with. The embedded API server enforces no RBAC; a
 * real one answers 403, and a role that lacks a verb the operator needs only shows on a cluster.
 *
 * <p>Every distinct request seen is also written to {@code target/operator-api-requests.txt}, the
 * record of what the operator does, from which the chart's rules were trimmed.
 */
public final class ChartRbacAudit
    implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

  private static final Path SEEN_FILE = Path.of("target", "operator-api-requests.txt");
  private static final Map<ChartInstall, ChartRbac> RENDERED = new ConcurrentHashMap<>();
  private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();

  @Override
  public void beforeAll(ExtensionContext context) {
    ApiRequestLog.start();
    ApiRequestLog.drain();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    check();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    check();
  }

  private static void check() {
    Set<String> refused = new TreeSet<>();
    boolean newlySeen = false;
    for (ApiRequestLog.Request r : ApiRequestLog.drain()) {
      Map<String, String> env = ApiRequestLog.environmentOf(r);
      if (env == null) {
        refused.add(
            "operator "
                + r.operator()
                + " was started without telling ApiRequestLog its environment: "
                + r.method()
                + " "
                + r.path());
        continue;
      }
      ChartInstall install = ChartInstall.matching(env);
      ApiRequest request = ApiRequest.parse(r.method(), r.path());
      newlySeen |= SEEN.add(request.shape());
      String why = RENDERED.computeIfAbsent(install, ChartInstall::rbac).refusal(request);
      if (why != null) {
        refused.add(request + " [" + request.path() + "]: " + why + ", installed with " + install);
      }
    }
    if (newlySeen) {
      writeSeen();
    }
    if (!refused.isEmpty()) {
      throw new AssertionError(
          "The operator made requests that the Helm chart's RBAC does not allow; a real API"
              + " server would answer them 403:\n  "
              + String.join("\n  ", refused));
    }
  }

  private static void writeSeen() {
    List<String> lines = new ArrayList<>(new TreeSet<>(SEEN));
    try {
      Files.createDirectories(SEEN_FILE.getParent());
      Files.write(SEEN_FILE, lines.stream().collect(Collectors.toList()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
