package dev.baton.testkit;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaseSpec;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A whole Baton installation in one process: a Kubernetes API (embedded, or a real cluster, see
 * {@link KubernetesUnderTest}), a real redis-server and the operator, plus the few things a kubelet
 * and kubectl would do to pods. The demo, the tests and the benchmarks all stand on it.
 */
public class Sandbox implements AutoCloseable {

  public static final String NS = "shop";

  /** Held unscheduled on a real cluster: no scheduler binds it, no kubelet runs it. */
  static final String NO_KUBELET_GATE = "baton.dev/no-kubelet";

  public final KubernetesUnderTest kube;
  public final KubernetesClient client;
  public final LocalRedis redis;
  private final OperatorLauncher launcher;
  private final Map<String, String> env = new HashMap<>();
  private AutoCloseable operator;
  private static final java.util.concurrent.atomic.AtomicInteger STARTED =
      new java.util.concurrent.atomic.AtomicInteger();

  /** On the API the environment asks for (see {@link KubernetesUnderTest#fromEnvironment()}). */
  public Sandbox(OperatorLauncher launcher) {
    this(KubernetesUnderTest.fromEnvironment(), launcher);
  }

  /** A sandbox on an API that was started with, say, fault injection or request counting. */
  public Sandbox(KubernetesUnderTest kube, OperatorLauncher launcher) {
    this(kube, launcher, Map.of());
  }

  /** The same, its redis-server started with {@code redisEnv} (a {@link SteppedClock}'s, say). */
  public Sandbox(
      KubernetesUnderTest kube, OperatorLauncher launcher, Map<String, String> redisEnv) {
    this.kube = kube;
    this.launcher = launcher;
    client = kube.client();
    redis = LocalRedis.start(redisEnv);
    env.put("BATON_REDIS_URL", redis.url());
    env.put("BATON_HTTP_PORT", "0");
    env.put("BATON_LEADER_ELECTION", "false");
    env.put("BATON_REDIS_TIMEOUT", "500ms");
  }

  /** Sets an operator environment variable for the next {@link #startOperator()}. */
  public Sandbox env(String key, String value) {
    env.put(key, value);
    return this;
  }

  public Sandbox startOperator() {
    // A name of its own, so its requests to the API can be told apart (ApiRequestLog).
    env.putIfAbsent(ApiRequestLog.IDENTITY, "sandbox-" + STARTED.incrementAndGet());
    ApiRequestLog.operatorStarting(env);
    try {
      operator = launcher.start(Map.copyOf(env), kube.newClient());
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the operator: " + e.getMessage(), e);
    }
    return this;
  }

  public void stopOperator() {
    if (operator != null) {
      try {
        operator.close();
      } catch (Exception e) {
        throw new IllegalStateException("cannot stop the operator: " + e.getMessage(), e);
      }
      operator = null;
    }
  }

  /** The operator started last, or null. */
  public AutoCloseable operator() {
    return operator;
  }

  /** A running, ready pod, as a kubelet would report it. */
  public static Pod readyPod(String namespace, String name, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("app")
        .withImage("registry.example/app:1")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withPodIP(podIp(name))
        .withConditions(readyCondition(true))
        .endStatus()
        .build();
  }

  /** A running pod has an address: one made from its name, as stable as a test needs. */
  static String podIp(String name) {
    int h = name.hashCode();
    return "10.244." + ((h >>> 8) & 0xff) + "." + (1 + Math.floorMod(h, 254));
  }

  public static PodCondition readyCondition(boolean ready) {
    return new PodConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False").build();
  }

  public Pod createPod(String name, String app) {
    return createPod(readyPod(NS, name, Map.of("app", app)));
  }

  /**
   * Creates a pod with the status it carries. A real API server ignores the status of a create, so
   * there the pod is held unscheduled (nothing runs it) and its status written afterwards.
   */
  public Pod createPod(Pod pod) {
    if (!kube.real()) {
      return client.pods().resource(pod).create();
    }
    var status = pod.getStatus();
    Pod gated =
        new PodBuilder(pod).editSpec().addNewSchedulingGate(NO_KUBELET_GATE).endSpec().build();
    Pod created = client.pods().resource(gated).create();
    created.setStatus(status);
    return client.pods().resource(created).updateStatus();
  }

  /**
   * Flips a pod's Ready condition, as a failing or recovering readiness probe would. The write is
   * guarded by the version read, so it is tried again when the operator's label patch came in
   * between (409), as a kubelet does.
   */
  public void setReady(String name, boolean ready) {
    for (int attempt = 1; ; attempt++) {
      try {
        client
            .pods()
            .inNamespace(NS)
            .withName(name)
            .editStatus(
                p -> {
                  p.getStatus().setConditions(List.of(readyCondition(ready)));
                  return p;
                });
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }

  public void deletePod(String name) {
    client.pods().inNamespace(NS).withName(name).delete();
  }

  /** A LeaderGroup over the pods labeled app=&lt;app&gt;, with a short lease for quick runs. */
  public static LeaderGroup group(String name, String app) {
    LeaderGroup g = new LeaderGroup();
    g.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NS).build());
    LeaderGroupSpec spec = new LeaderGroupSpec();
    spec.setSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", app)).build());
    spec.setLease(new LeaseSpec("3s", "500ms"));
    g.setSpec(spec);
    return g;
  }

  public LeaderGroup create(LeaderGroup g) {
    return client.resource(g).create();
  }

  public LeaderGroup get(String name) {
    return client.resources(LeaderGroup.class).inNamespace(NS).withName(name).get();
  }

  /** Annotates a group as {@code kubectl annotate} does: a merge patch, whatever its version. */
  public void annotate(String group, String key, String value) {
    client
        .resources(LeaderGroup.class)
        .inNamespace(NS)
        .withName(group)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(Map.of("metadata", Map.of("annotations", Map.of(key, value)))));
  }

  public List<Pod> pods() {
    return client.pods().inNamespace(NS).list().getItems();
  }

  public Pod pod(String name) {
    return client.pods().inNamespace(NS).withName(name).get();
  }

  /** Pod name to role label value, for every pod that has one. */
  public Map<String, String> roles(String roleLabel) {
    Map<String, String> out = new TreeMap<>();
    for (Pod p : pods()) {
      var labels = p.getMetadata().getLabels();
      if (labels != null && labels.containsKey(roleLabel)) {
        out.put(p.getMetadata().getName(), labels.get(roleLabel));
      }
    }
    return out;
  }

  public List<String> leaders(String roleLabel) {
    return roles(roleLabel).entrySet().stream()
        .filter(e -> e.getValue().equals("leader"))
        .map(Map.Entry::getKey)
        .toList();
  }

  @Override
  public void close() {
    stopOperator();
    redis.close();
    kube.close();
  }
}
