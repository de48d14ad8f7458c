package dev.baton.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.agent.config.AgentConfig;
import dev.baton.agent.testing.AgentProcess;
import dev.baton.agent.testing.AgentSandbox;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.operator.injection.AgentInjector;
import dev.baton.testkit.ByteRecorder;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.ServerJsonPatch;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Issue 60's "done when", on one host: examples/agent-relay.yaml's Deployment, its pod template run
 * through the operator's injector as the webhook gets it (the chart's defaults), gives three agents
 * (the shipped jar, a process each) that run with the injected container's environment, the
 * downward API and the chart's Redis Secret resolved as the kubelet would; the example's own
 * LeaderGroup elects one, and a "Service" over every ready pod has each connection echoed by the
 * leader's application. {@link RelayIT} runs relay mode with an environment of its own making; this
 * shows the one the webhook writes works. Only {@link #OVERRIDDEN} differs, because three pods
 * share one host here:
 *
 * <ul>
 *   <li>{@code BATON_AGENT_GATE}: the target only. 127.0.0.1:8081 is the pod's own loopback; here
 *       the three applications share one, each on a port of its own. The gate port stays.
 *   <li>{@code BATON_AGENT_HEALTH_LISTEN}: the host only. Every interface would take the port once
 *       on this host; each agent binds it on its pod's address.
 *   <li>{@code BATON_AGENT_GATE_BIND} (added): the pod's address (127.0.0.3x, as pod IPs), which
 *       every interface is in a pod: the gate and leader-only ports keep their injected numbers.
 *   <li>{@code BATON_AGENT_LISTEN} (added): the default 127.0.0.1:4040 is the pod's loopback; here
 *       port 0, picked by each agent.
 *   <li>{@code KUBECONFIG} (added): the sandbox's API, for the projected token volume.
 * </ul>
 */
@Timeout(150)
class InjectedRelayIT {

  private static final Path EXAMPLE = Path.of("..", "examples", "agent-relay.yaml");
  private static final Path CHART_VALUES = Path.of("..", "helm", "baton-operator", "values.yaml");
  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final Set<String> OVERRIDDEN =
      Set.of(
          AgentConfig.GATE,
          AgentConfig.HEALTH_LISTEN,
          AgentConfig.GATE_BIND,
          AgentConfig.LISTEN,
          AgentConfig.KUBECONFIG);

  @TempDir Path dir;
  private AgentSandbox sandbox;
  private final Map<String, AgentProcess> agents = new LinkedHashMap<>();
  private final Map<String, String> ips = new LinkedHashMap<>();

  @AfterEach
  void stop() {
    agents.values().forEach(AgentProcess::close);
    if (sandbox != null) {
      sandbox.close();
    }
  }

  @Test
  void threeInjectedAgentsOneLeaderEveryConnectionOnTheLeader() throws Exception {
    Map<String, JsonNode> example = new HashMap<>();
    Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
    for (Object doc : yaml.loadAll(Files.readString(EXAMPLE))) {
      JsonNode node = JSON.valueToTree(doc);
      example.put(node.path("kind").asText(), node);
    }
    LeaderGroup group = JSON.treeToValue(example.get("LeaderGroup"), LeaderGroup.class);
    group.getMetadata().setNamespace(Sandbox.NS);
    JsonNode deployment = example.get("Deployment");
    Map<String, Object> chart = yaml.load(Files.readString(CHART_VALUES));
    Map<?, ?> webhook = (Map<?, ?>) chart.get("webhook");
    Map<?, ?> redisAcl = (Map<?, ?>) chart.get("redisAcl");
    String redisSecret = (String) webhook.get("agentRedisSecret");
    JsonNode injected =
        inject(
            deployment.path("spec").path("template"),
            group,
            new AgentInjector.Settings(
                "ghcr.io/baton-dev/baton-operator:0.1.0",
                redisSecret,
                true, // nativeSidecar: auto, on Kubernetes 1.29 and later
                Boolean.TRUE.equals(redisAcl.get("perGroupUsers"))));

    sandbox = new AgentSandbox().startOperator();
    Map<String, Map<String, String>> secrets =
        Map.of(redisSecret, Map.of("url", sandbox.cluster.redis.url()));
    String kubeconfig = sandbox.kubeconfig(dir).toString();
    int replicas = deployment.path("spec").path("replicas").asInt();
    assertThat(replicas).isEqualTo(3);
    int gatePort = -1;
    for (int i = 0; i < replicas; i++) {
      String name = "orders-7c9d8b6f5-" + i;
      String ip = "127.0.0." + (31 + i);
      ips.put(name, ip);
      Pod pod = JSON.treeToValue(injected, Pod.class);
      pod.getMetadata().setGenerateName(null);
      pod.getMetadata().setName(name);
      pod.getMetadata().setNamespace(Sandbox.NS);
      pod.setStatus(Sandbox.readyPod(Sandbox.NS, name, Map.of()).getStatus());
      pod.getStatus().setPodIP(ip);
      sandbox.cluster.createPod(pod);
      Container agent = pod.getSpec().getInitContainers().get(0); // a native sidecar
      assertThat(agent.getName()).isEqualTo(BatonNames.AGENT_CONTAINER);
      Map<String, String> kubelet = kubeletEnv(agent, pod, secrets);
      assertThat(kubelet).containsKeys(AgentConfig.RELAY, AgentConfig.REDIS_URL);

      Map<String, String> env = new HashMap<>(kubelet);
      String gate = kubelet.get(AgentConfig.GATE);
      gatePort = Integer.parseInt(gate.substring(0, gate.indexOf(':')));
      String app = sandbox.env(name, Duration.ofSeconds(2), true).get(AgentConfig.GATE);
      env.put(AgentConfig.GATE, gatePort + ":" + app.substring(app.indexOf(':') + 1));
      String health = kubelet.get(AgentConfig.HEALTH_LISTEN);
      env.put(AgentConfig.HEALTH_LISTEN, ip + health.substring(health.lastIndexOf(':')));
      env.put(AgentConfig.GATE_BIND, ip);
      env.put(AgentConfig.LISTEN, "127.0.0.1:0");
      env.put(AgentConfig.KUBECONFIG, kubeconfig);
      Set<String> changed = new TreeSet<>(env.keySet());
      changed.removeIf(k -> Objects.equals(env.get(k), kubelet.get(k)));
      assertThat(changed).as("what this test sets itself").isEqualTo(new TreeSet<>(OVERRIDDEN));
      agents.put(name, AgentProcess.start(env, dir.resolve(name + ".log")));
    }
    for (String name : ips.keySet()) {
      AgentProcess process = agents.get(name);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                assertThat(process.alive()).as("agent of %s:\n%s", name, process.log()).isTrue();
                return process.ready();
              });
    }

    sandbox.cluster.create(group);
    String leader = sandbox.awaitLeader();
    await().atMost(Duration.ofSeconds(30)).until(() -> leads(leader));

    int port = gatePort;
    // Every follower has learnt where the leader is: a connection through each is served.
    for (String ip : ips.values()) {
      await().atMost(Duration.ofSeconds(10)).until(() -> connectOnce(ip, port, leader) == null);
    }

    List<String> pods = new ArrayList<>(ips.keySet());
    Random random = new Random(60);
    ExecutorService clients = Executors.newCachedThreadPool();
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    int attempts = 150;
    for (int i = 0; i < attempts; i++) {
      String ip = ips.get(pods.get(random.nextInt(pods.size())));
      clients.execute(
          () -> {
            String failure = connectOnce(ip, port, leader);
            if (failure != null) {
              failures.add(failure);
            }
          });
      Thread.sleep(20);
    }
    clients.shutdown();
    assertThat(clients.awaitTermination(20, TimeUnit.SECONDS)).isTrue();

    assertThat(failures).as("connections not echoed by the leader's application").isEmpty();
    assertThat(pods).filteredOn(this::leads).containsExactly(leader);
    assertThat(agents.values())
        .anySatisfy(
            p ->
                assertThat(p.get("/metrics").body())
                    .containsPattern("baton_agent_relay_connections_total\\{[^}]*relayed"));
  }

  /** The template as a ReplicaSet's pod, through the injector, patched as the API server does. */
  private static JsonNode inject(JsonNode template, LeaderGroup group, AgentInjector.Settings s)
      throws IOException {
    ObjectNode pod = JSON.createObjectNode();
    pod.put("apiVersion", "v1").put("kind", "Pod");
    ObjectNode meta = template.path("metadata").deepCopy();
    meta.put("generateName", "orders-7c9d8b6f5-");
    pod.set("metadata", meta);
    pod.set("spec", template.path("spec").deepCopy());
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode req = review.putObject("request");
    req.put("uid", "1").put("namespace", Sandbox.NS).put("operation", "CREATE");
    req.putObject("kind").put("group", "").put("version", "v1").put("kind", "Pod");
    req.set("object", pod);
    Map<String, String> selector = group.getSpec().getSelector().getMatchLabels();
    AgentInjector injector =
        new AgentInjector(
            (ns, labels) ->
                labels.entrySet().containsAll(selector.entrySet())
                    ? Optional.of(AgentInjector.Group.of(group))
                    : Optional.empty(),
            s);
    JsonNode response = injector.review(review).path("response");
    assertThat(response.path("allowed").asBoolean()).as(response.toString()).isTrue();
    JsonNode ops = JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
    return ServerJsonPatch.apply(pod, ops);
  }

  /** The container's environment as the kubelet makes it: downward API and Secret keys resolved. */
  private static Map<String, String> kubeletEnv(
      Container c, Pod pod, Map<String, Map<String, String>> secrets) {
    Map<String, String> env = new HashMap<>();
    for (EnvVar e : c.getEnv()) {
      if (e.getValueFrom() == null) {
        env.put(e.getName(), e.getValue());
      } else if (e.getValueFrom().getFieldRef() != null) {
        env.put(e.getName(), field(pod, e.getValueFrom().getFieldRef().getFieldPath()));
      } else if (e.getValueFrom().getSecretKeyRef() != null) {
        var ref = e.getValueFrom().getSecretKeyRef();
        String value = secrets.getOrDefault(ref.getName(), Map.of()).get(ref.getKey());
        if (value != null) {
          env.put(e.getName(), value);
        } else {
          assertThat(ref.getOptional()).as("no such key, not optional: " + ref).isTrue();
        }
      } else {
        throw new AssertionError("a variable this test cannot resolve: " + e);
      }
    }
    return env;
  }

  /** The downward API's value of {@code path} for {@code pod}. */
  private static String field(Pod pod, String path) {
    return switch (path) {
      case "metadata.name" -> pod.getMetadata().getName();
      case "metadata.namespace" -> pod.getMetadata().getNamespace();
      case "status.podIP" -> pod.getStatus().getPodIP();
      default -> throw new AssertionError("a field this test does not give: " + path);
    };
  }

  /**
   * One client connection through a pod's gate: null when its frame came back from the leader's
   * application, else what happened.
   */
  private String connectOnce(String ip, int port, String leader) {
    byte[] frame = ByteRecorder.frame();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(ip, port), 2000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write(frame);
      byte[] echo = s.getInputStream().readNBytes(ByteRecorder.FRAME_BYTES);
      String app = sandbox.bytes.reachedBy(ByteRecorder.stampOf(frame));
      if (Arrays.equals(echo, frame) && leader.equals(app)) {
        return null;
      }
      return ip + ": " + echo.length + " bytes back, the frame at " + app + "'s application";
    } catch (IOException e) {
      return ip + ": " + e;
    }
  }

  private boolean leads(String pod) {
    AgentProcess p = agents.get(pod);
    var answer = p == null || !p.alive() ? null : p.get("/v1/leadership");
    return answer != null && answer.body().contains("\"leader\":true");
  }
}
