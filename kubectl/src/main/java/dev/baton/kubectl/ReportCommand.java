package dev.baton.kubectl;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kubectl baton report}: a support bundle (a .tgz) of one group as the API server shows it:
 * the LeaderGroup, its pods, the Services and EndpointSlices that route to it, the namespace's
 * RedisLocks, the Events of the group and its pods, the operator's Lease and pod, the tails of the
 * active operator's and the agents' logs, and the Redis facts each agent reports (its {@code
 * baton_agent_redis_*} meters, read through the API server's pod proxy, and its log line about the
 * gate key's node). Every secret value is taken out first ({@link Redactor}); what could not be
 * read is listed in errors.txt, so a user with less access still gets the rest.
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description = {
      "Write a support bundle (.tgz) of GROUP: its resources, Events, the operator's Lease,"
          + " operator and agent log tails, and the Redis facts the agents report. Secret values"
          + " are replaced by "
          + Redactor.MARK
          + "."
    })
final class ReportCommand implements Callable<Integer> {

  private final Session session;

  @Parameters(paramLabel = "GROUP", description = "The LeaderGroup.")
  String group;

  @Option(
      names = "--file",
      paramLabel = "PATH",
      description = "Where to write it (default baton-report-<namespace>-<group>-<time>.tgz).")
  Path file;

  @Option(
      names = "--tail",
      paramLabel = "LINES",
      defaultValue = "500",
      description = "Lines of each log (default ${DEFAULT-VALUE}).")
  int tail;

  @Option(
      names = "--operator-namespace",
      paramLabel = "NAMESPACE",
      defaultValue = BatonPods.DEFAULT_OPERATOR_NAMESPACE,
      description = "Where the operator runs (default ${DEFAULT-VALUE}).")
  String operatorNamespace;

  @Option(
      names = "--lease",
      paramLabel = "NAME",
      defaultValue = BatonPods.DEFAULT_LEASE,
      description = "The operator's Lease (default ${DEFAULT-VALUE}).")
  String lease;

  private final Map<String, String> entries = new LinkedHashMap<>();
  private final List<String> errors = new ArrayList<>();
  private final Redactor redactor = new Redactor();

  ReportCommand(Session session) {
    this.session = session;
  }

  @Override
  public Integer call() throws IOException {
    KubernetesClient client = session.client();
    String ns = session.namespace();
    LeaderGroup g = client.resources(LeaderGroup.class).inNamespace(ns).withName(group).get();
    if (g == null) {
      throw new Refused("no LeaderGroup " + group + " in namespace " + ns);
    }
    String dir = "baton-report-" + ns + "-" + group;
    List<Pod> pods = read("pods", () -> BatonPods.candidates(client, g), List.of());
    Set<String> secrets = new TreeSet<>();
    if (g.getSpec().getRedis() != null && g.getSpec().getRedis().getSecretRef() != null) {
      secrets.add(g.getSpec().getRedis().getSecretRef().getName());
    }
    pods.forEach(p -> secrets.addAll(secretsOf(p)));
    StringBuilder secretNotes = new StringBuilder();
    learnSecrets(client, ns, secrets, secretNotes);
    pods.forEach(redactor::learnLiterals);

    namespaced(client, g, pods);
    operator(client, secretNotes);
    agents(client, pods);
    entries.put("secrets.txt", secretNotes.toString());
    entries.put("errors.txt", errors.isEmpty() ? "none\n" : String.join("\n", errors) + "\n");
    entries.put("README.txt", readme(ns));

    Path target = file != null ? file : Path.of(defaultName(ns));
    try (OutputStream os = Files.newOutputStream(target);
        TarBundle tar = new TarBundle(os)) {
      for (Map.Entry<String, String> e : entries.entrySet()) {
        tar.add(dir + "/" + e.getKey(), redactor.scrub(e.getValue()));
      }
    }
    session.out.println(
        "Wrote "
            + target
            + ": "
            + entries.size()
            + " files, secret values replaced by "
            + Redactor.MARK
            + (errors.isEmpty() ? "." : "; " + errors.size() + " not readable (errors.txt)."));
    return 0;
  }

  /** What the namespace shows of the group: status, the group, pods, routing, Events, locks. */
  private void namespaced(KubernetesClient client, LeaderGroup g, List<Pod> pods) {
    String ns = g.getMetadata().getNamespace();
    ByteArrayOutputStream summary = new ByteArrayOutputStream();
    read(
        "status",
        () ->
            new StatusReport(client, new PrintStream(summary, true, StandardCharsets.UTF_8))
                .print(ns, group, null),
        1);
    entries.put("summary.txt", summary.toString(StandardCharsets.UTF_8));
    entries.put("leadergroup.yaml", Printing.yaml(Redactor.sanitized(g)));
    entries.put("pods.yaml", Printing.yaml(pods.stream().map(Redactor::sanitized).toList()));
    routing(client, ns, g);
    Set<String> involved = new TreeSet<>();
    pods.forEach(p -> involved.add(p.getMetadata().getName()));
    involved.add(group);
    List<Event> events =
        read(
            "events",
            () ->
                client.v1().events().inNamespace(ns).list().getItems().stream()
                    .filter(e -> e.getInvolvedObject() != null)
                    .filter(e -> involved.contains(e.getInvolvedObject().getName()))
                    .sorted(java.util.Comparator.comparing(StatusReport::when))
                    .toList(),
            List.of());
    entries.put("events.yaml", Printing.yaml(events.stream().map(Redactor::sanitized).toList()));
    entries.put(
        "redislocks.yaml",
        Printing.yaml(
            read(
                    "redislocks",
                    () -> client.resources(RedisLock.class).inNamespace(ns).list().getItems(),
                    List.<RedisLock>of())
                .stream()
                .map(Redactor::sanitized)
                .toList()));
  }

  /** The Secrets a pod's containers read: env, envFrom and volumes. */
  private static Set<String> secretsOf(Pod pod) {
    Set<String> names = new TreeSet<>();
    List<Container> all = new ArrayList<>(pod.getSpec().getContainers());
    all.addAll(pod.getSpec().getInitContainers());
    for (Container c : all) {
      for (EnvVar e : c.getEnv()) {
        if (e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null) {
          names.add(e.getValueFrom().getSecretKeyRef().getName());
        }
      }
      for (EnvFromSource f : c.getEnvFrom()) {
        if (f.getSecretRef() != null) {
          names.add(f.getSecretRef().getName());
        }
      }
    }
    for (Volume v : pod.getSpec().getVolumes()) {
      if (v.getSecret() != null) {
        names.add(v.getSecret().getSecretName());
      }
    }
    return names;
  }

  /** Reads each Secret to learn its values; the bundle names its keys, never its values. */
  private void learnSecrets(
      KubernetesClient client, String ns, Set<String> names, StringBuilder notes) {
    for (String name : names) {
      Secret s =
          read(
              "secret " + ns + "/" + name,
              () -> client.secrets().inNamespace(ns).withName(name).get(),
              null);
      if (s == null) {
        notes.append(ns).append('/').append(name).append(": not readable here\n");
        continue;
      }
      redactor.learnSecret(s.getData(), s.getStringData());
      Set<String> keys = new TreeSet<>();
      if (s.getData() != null) {
        keys.addAll(s.getData().keySet());
      }
      if (s.getStringData() != null) {
        keys.addAll(s.getStringData().keySet());
      }
      notes.append(ns).append('/').append(name).append(": keys ").append(keys).append('\n');
    }
  }

  private void routing(KubernetesClient client, String ns, LeaderGroup g) {
    Set<String> services = new TreeSet<>();
    if (g.getStatus() != null && g.getStatus().getRouting() != null) {
      g.getStatus().getRouting().forEach(r -> services.add(r.getService()));
    }
    if (g.getSpec().getService() != null && g.getSpec().getService().getName() != null) {
      services.add(g.getSpec().getService().getName());
    }
    List<Object> found = new ArrayList<>();
    List<Object> slices = new ArrayList<>();
    for (String name : services) {
      var svc =
          read(
              "service " + name,
              () -> client.services().inNamespace(ns).withName(name).get(),
              null);
      if (svc != null) {
        found.add(Redactor.sanitized(svc));
      }
      read(
              "endpointslices of " + name,
              () ->
                  client
                      .discovery()
                      .v1()
                      .endpointSlices()
                      .inNamespace(ns)
                      .withLabel("kubernetes.io/service-name", name)
                      .list()
                      .getItems(),
              List.<io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice>of())
          .forEach(s -> slices.add(Redactor.sanitized(s)));
    }
    entries.put("services.yaml", Printing.yaml(found));
    entries.put("endpointslices.yaml", Printing.yaml(slices));
  }

  private void operator(KubernetesClient client, StringBuilder secretNotes) {
    BatonPods.Operator op =
        read(
            "the operator (Lease " + operatorNamespace + "/" + lease + ")",
            () -> BatonPods.activeOperator(client, operatorNamespace, lease),
            null);
    if (op == null) {
      return;
    }
    learnSecrets(client, operatorNamespace, secretsOf(op.pod()), secretNotes);
    redactor.learnLiterals(op.pod());
    String pod = op.pod().getMetadata().getName();
    entries.put("operator/lease.yaml", Printing.yaml(Redactor.sanitized(op.lease())));
    entries.put("operator/pod.yaml", Printing.yaml(Redactor.sanitized(op.pod())));
    entries.put(
        "operator/" + pod + ".log",
        read(
            "operator log " + pod,
            () -> BatonPods.tail(client, op.pod(), op.container(), tail),
            ""));
  }

  private void agents(KubernetesClient client, List<Pod> pods) {
    for (Pod p : pods) {
      String pod = p.getMetadata().getName();
      for (Container agent : BatonPods.agents(p)) {
        String base = "agents/" + pod + "/" + agent.getName();
        String log =
            read(
                "agent log " + pod + "/" + agent.getName(),
                () -> BatonPods.tail(client, p, agent.getName(), tail),
                "");
        entries.put(base + ".log", log);
        entries.put(base + "-redis.txt", redisFacts(client, p, agent, log));
      }
    }
  }

  /** What the agent says of its Redis: its redis meters and its log line about the key's node. */
  private String redisFacts(KubernetesClient client, Pod pod, Container agent, String log) {
    StringBuilder facts = new StringBuilder();
    int port = BatonPods.healthPort(agent);
    if (port < 0) {
      facts.append("# the agent serves no health port (BATON_AGENT_HEALTH_LISTEN): no meters\n");
    } else {
      String url =
          client.getMasterUrl()
              + "api/v1/namespaces/"
              + pod.getMetadata().getNamespace()
              + "/pods/"
              + pod.getMetadata().getName()
              + ":"
              + port
              + "/proxy/metrics";
      String metrics =
          read("agent metrics " + pod.getMetadata().getName(), () -> client.raw(url), null);
      facts.append("# baton_agent_redis_* from /metrics on port ").append(port).append('\n');
      if (metrics != null) {
        for (String line : metrics.split("\n")) {
          if (line.contains("baton_agent_redis_")) {
            facts.append(line).append('\n');
          }
        }
      }
    }
    facts.append("# the agent's log about its Redis\n");
    for (String line : log.split("\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).contains("redis")) {
        facts.append(line).append('\n');
      }
    }
    return facts.toString();
  }

  /** The value, or the fallback with the reason recorded in errors.txt. */
  private <T> T read(String what, Supplier<T> reader, T fallback) {
    try {
      return reader.get();
    } catch (KubernetesClientException e) {
      errors.add(what + ": " + KubectlBaton.apiMessage(e));
    } catch (Refused e) {
      errors.add(what + ": " + e.getMessage());
    }
    return fallback;
  }

  private String readme(String ns) {
    return "kubectl baton report of LeaderGroup "
        + ns
        + "/"
        + group
        + ", written "
        + Instant.now()
        + " by "
        + new Commands.Root.Version().getVersion()[0]
        + ".\n"
        + "Every value of the Secrets the group, its pods and the operator use, secret-named\n"
        + "variables, URL passwords and password-like pairs are replaced by "
        + Redactor.MARK
        + ".\n"
        + "secrets.txt names the Secrets and their keys; errors.txt what could not be read.\n";
  }

  private String defaultName(String ns) {
    return "baton-report-"
        + ns
        + "-"
        + group
        + "-"
        + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .withZone(ZoneOffset.UTC)
            .format(Instant.now())
        + ".tgz";
  }
}
