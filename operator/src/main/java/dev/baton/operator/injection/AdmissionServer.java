package dev.baton.operator.injection;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.baton.client.DaemonThreads;
import dev.baton.operator.certificates.ServingIdentity;
import dev.baton.operator.metrics.HttpEndpoints;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook's HTTPS endpoint, {@value #PATH}, on its own port: the API server posts an
 * AdmissionReview and waits at most the configuration's timeoutSeconds for the answer. TLS with the
 * {@link ServingIdentity}'s certificate, which a renewal swaps without a restart.
 */
public final class AdmissionServer implements AutoCloseable {

  public static final String PATH = "/mutate-pods";

  /** The API server sends at most 3 MiB of object; more is not an AdmissionReview of a pod. */
  private static final int MAX_BODY = 4 << 20;

  private static final Logger log = LoggerFactory.getLogger(AdmissionServer.class);
  private static final ObjectMapper JSON = Serialization.jsonMapper();

  private final HttpsServer server;
  private final ExecutorService pool;

  private AdmissionServer(HttpsServer server, ExecutorService pool) {
    this.server = server;
    this.pool = pool;
  }

  public static AdmissionServer start(int port, ServingIdentity identity, AgentInjector injector)
      throws IOException {
    SSLContext tls;
    try {
      tls = SSLContext.getInstance("TLS");
      tls.init(new KeyManager[] {identity}, null, new SecureRandom());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no TLS context for the webhook", e);
    }
    HttpsServer server = HttpsServer.create(new InetSocketAddress(port), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    ExecutorService pool = Executors.newFixedThreadPool(4, DaemonThreads.named("baton-webhook"));
    server.setExecutor(pool);
    server.createContext(PATH, ex -> answer(ex, injector));
    server.start();
    return new AdmissionServer(server, pool);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void answer(HttpExchange ex, AgentInjector injector) throws IOException {
    try (ex) {
      if (!"POST".equals(ex.getRequestMethod())) {
        send(ex, 405, "{\"error\":\"POST an AdmissionReview\"}");
        return;
      }
      JsonNode review;
      try (InputStream in = ex.getRequestBody()) {
        byte[] body = in.readNBytes(MAX_BODY + 1);
        if (body.length > MAX_BODY) {
          send(ex, 413, "{\"error\":\"request too large\"}");
          return;
        }
        review = JSON.readTree(body);
      } catch (IOException e) {
        send(ex, 400, "{\"error\":\"not JSON\"}");
        return;
      }
      String answer;
      try {
        answer = injector.review(review).toString();
      } catch (RuntimeException e) {
        // The API server applies the failurePolicy to a 500 as to a timeout.
        log.warn("Could not answer an AdmissionReview: {}", e.toString(), e);
        send(ex, 500, "{\"error\":\"internal error\"}");
        return;
      }
      send(ex, 200, answer);
    }
  }

  private static void send(HttpExchange ex, int code, String body) throws IOException {
    HttpEndpoints.send(ex, code, body, "application/json");
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}
