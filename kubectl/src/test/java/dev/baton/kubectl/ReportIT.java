package dev.baton.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.testkit.PodSubresources;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kubectl baton report: a bundle with the group's resources, Events, the operator's Lease, log
 * tails and the Redis facts the agents report (their meters read through the API server's pod proxy
 * from a server on the pod's address), in which a secret value planted in the Secret, the pod spec,
 * an annotation, an Event, the logs and the agent's meters appears nowhere.
 */
class ReportIT {

  /** The planted secret: a Redis password. */
  private static final String SECRET = "Pl4nted-S3cret-v4lue";

  private static final String B64 =
      Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8));

  private PluginCluster cluster;
  private HttpServer agentMetrics;
  @TempDir Path dir;

  @BeforeEach
  void start() throws IOException {
    cluster = new PluginCluster();
    PodSubresources logs = cluster.kube.podSubresources();
    cluster.namespace("shop");
    cluster.namespace("baton-system");
    agentMetrics = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    agentMetrics.createContext(
        "/metrics",
        x -> {
          byte[] body =
              ("# TYPE baton_agent_redis_up gauge\n"
                      + "baton_agent_redis_up{url=\"redis://baton:"
                      + SECRET
                      + "@redis:6379\"} 1\n"
                      + "baton_agent_redis_evicts_gate_key 0\n"
                      + "baton_agent_gate_open 1\n")
                  .getBytes(StandardCharsets.UTF_8);
          x.sendResponseHeaders(200, body.length);
          x.getResponseBody().write(body);
          x.close();
        });
    agentMetrics.start();
    int port = agentMetrics.getAddress().getPort();

    cluster
        .client
        .secrets()
        .inNamespace("shop")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("payments-redis")
                .withNamespace("shop")
                .endMetadata()
                // as the API server returns it: base64 under data, never stringData
                .addToData("url", base64("redis://baton:" + SECRET + "@redis.shop:6379"))
                .addToData("password", base64(SECRET))
                .build())
        .create();
    LeaderGroup g = cluster.group("shop", "payments", "payments");
    g.getSpec().setRedis(new RedisConnectionRef("payments-redis"));
    g.getMetadata()
        .setAnnotations(
            Map.of(
                "kubectl.kubernetes.io/last-applied-configuration",
                "{\"note\":\"" + SECRET + "\"}",
                "example.com/note",
                "password=" + SECRET));
    cluster.client.resource(g).update();

    cluster
        .client
        .pods()
        .resource(
            new PodBuilder(
                    cluster.podWithAgent("shop", "payments-0", "payments", "127.0.0.1", port))
                .editSpec()
                .editFirstContainer()
                .addNewEnv()
                .withName("DB_PASSWORD")
                .withValue(SECRET)
                .endEnv()
                .addNewEnv()
                .withName("BACKUP_TARGET")
                .withValue("s3://backups/" + SECRET)
                .endEnv()
                .addNewEnv()
                .withName("REDIS_PASSWORD")
                .withNewValueFrom()
                .withNewSecretKeyRef("password", "payments-redis", false)
                .endValueFrom()
                .endEnv()
                .endContainer()
                .endSpec()
                .build())
        .update();
    logs.write(
        "shop",
        "payments-0",
        "baton-agent",
        "agent up\nthe Redis node of this group's gate key: maxmemory 0 noeviction, AOF on\n"
            + "connecting to redis://baton:"
            + SECRET
            + "@redis.shop:6379\n"
            + "auth header "
            + B64
            + "\n");

    cluster
        .client
        .v1()
        .events()
        .inNamespace("shop")
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName("payments.1")
                .withNamespace("shop")
                .endMetadata()
                .withNewInvolvedObject()
                .withKind("LeaderGroup")
                .withName("payments")
                .withNamespace("shop")
                .endInvolvedObject()
                .withReason("RedisUnavailable")
                .withMessage("NOAUTH for password " + SECRET)
                .withType("Warning")
                .withLastTimestamp("2026-12-05T10:00:00Z")
                .build())
        .create();

    cluster
        .client
        .pods()
        .resource(
            new PodBuilder(
                    Sandbox.readyPod(
                        "baton-system", "baton-operator-6f7c9-a1", Map.of("app", "baton")))
                .editSpec()
                .editFirstContainer()
                .withName("operator")
                .endContainer()
                .endSpec()
                .build())
        .create();
    cluster
        .client
        .leases()
        .inNamespace("baton-system")
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("baton-operator")
                .withNamespace("baton-system")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("baton-operator-6f7c9-a1")
                .endSpec()
                .build())
        .create();
    logs.write(
        "baton-system",
        "baton-operator-6f7c9-a1",
        "operator",
        "took the Lease\nshop/payments: Redis refused password=" + SECRET + "\n");
  }

  @AfterEach
  void stop() {
    agentMetrics.stop(0);
    cluster.close();
  }

  @Test
  void theBundleHoldsTheGroupsStoryAndNoSecretValue() throws IOException {
    Path bundle = dir.resolve("report.tgz");

    PluginCluster.Run run =
        cluster.baton("-n", "shop", "report", "payments", "--file", bundle.toString());

    assertThat(run.exit()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).contains("Wrote " + bundle);
    Map<String, String> files = untar(bundle);
    String root = "baton-report-shop-payments/";
    assertThat(files)
        .containsKeys(
            root + "summary.txt",
            root + "leadergroup.yaml",
            root + "pods.yaml",
            root + "events.yaml",
            root + "operator/lease.yaml",
            root + "operator/baton-operator-6f7c9-a1.log",
            root + "agents/payments-0/baton-agent.log",
            root + "agents/payments-0/baton-agent-redis.txt",
            root + "secrets.txt",
            root + "errors.txt");
    files.forEach(
        (name, text) ->
            assertThat(text)
                .as(name)
                .doesNotContain(SECRET)
                .doesNotContain(B64)
                .doesNotContain("Pl4nted"));
    assertThat(files.get(root + "leadergroup.yaml"))
        .contains("name: payments")
        .contains("payments-redis")
        .doesNotContain("last-applied-configuration");
    assertThat(files.get(root + "agents/payments-0/baton-agent-redis.txt"))
        .contains("baton_agent_redis_evicts_gate_key 0")
        .contains("maxmemory 0 noeviction")
        .doesNotContain("gate_open");
    assertThat(files.get(root + "operator/baton-operator-6f7c9-a1.log")).contains("took the Lease");
    assertThat(files.get(root + "events.yaml")).contains("RedisUnavailable");
    assertThat(files.get(root + "secrets.txt"))
        .contains("shop/payments-redis: keys [password, url]");
    assertThat(files.get(root + "pods.yaml")).contains("DB_PASSWORD").contains(Redactor.MARK);
    assertThat(files.get(root + "errors.txt")).isEqualTo("none\n");
  }

  private static String base64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  /** The files of a .tgz, read with the JDK alone (a 512-byte header, then the padded bytes). */
  private static Map<String, String> untar(Path file) throws IOException {
    Map<String, String> files = new LinkedHashMap<>();
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      byte[] header = new byte[512];
      while (in.readNBytes(header, 0, 512) == 512 && header[0] != 0) {
        String name = field(header, 0, 100);
        String prefix = field(header, 345, 155);
        long size = Long.parseLong(field(header, 124, 12).trim(), 8);
        byte[] body = in.readNBytes((int) size);
        in.readNBytes((int) ((512 - size % 512) % 512));
        files.put(
            prefix.isEmpty() ? name : prefix + "/" + name,
            new String(body, StandardCharsets.UTF_8));
      }
    }
    return files;
  }

  private static String field(byte[] header, int at, int length) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int i = at; i < at + length && header[i] != 0; i++) {
      b.write(header[i]);
    }
    return b.toString(StandardCharsets.UTF_8);
  }
}
