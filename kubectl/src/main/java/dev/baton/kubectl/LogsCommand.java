package dev.baton.kubectl;

import dev.baton.api.v1alpha1.LeaderGroup;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kubectl baton logs}: the active operator's log (the pod its Lease names), or, for a group,
 * the logs of the Baton agents beside its pods, each line prefixed with its pod and container.
 */
@Command(
    name = "logs",
    mixinStandardHelpOptions = true,
    description = {
      "Without GROUP: the active operator's log, found by its Lease. With GROUP: the logs of the"
          + " Baton agents in the group's pods, each line prefixed [pod/container]."
    })
final class LogsCommand implements Callable<Integer> {

  private final Session session;

  @Parameters(arity = "0..1", paramLabel = "GROUP", description = "A LeaderGroup.")
  String group;

  @Option(
      names = {"-f", "--follow"},
      description = "Stream the logs until interrupted.")
  boolean follow;

  @Option(
      names = "--tail",
      paramLabel = "LINES",
      defaultValue = "100",
      description = "Lines of each log to show, -1 for all (default ${DEFAULT-VALUE}).")
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
      description =
          "The operator's Lease (the chart's leaderElection.leaseName, default ${DEFAULT-VALUE}).")
  String lease;

  LogsCommand(Session session) {
    this.session = session;
  }

  /** One container's log to show, and the prefix of its lines (empty: none). */
  private record Source(Pod pod, String container, String prefix) {}

  @Override
  public Integer call() throws InterruptedException {
    KubernetesClient client = session.client();
    List<Source> sources = new ArrayList<>();
    if (group == null) {
      BatonPods.Operator op = BatonPods.activeOperator(client, operatorNamespace, lease);
      session.err.println(
          "# the active operator: "
              + operatorNamespace
              + "/"
              + op.pod().getMetadata().getName()
              + " (Lease "
              + lease
              + ", renewed "
              + op.lease().getSpec().getRenewTime()
              + ")");
      sources.add(new Source(op.pod(), op.container(), ""));
    } else {
      String ns = session.namespace();
      LeaderGroup g = client.resources(LeaderGroup.class).inNamespace(ns).withName(group).get();
      if (g == null) {
        throw new Refused("no LeaderGroup " + group + " in namespace " + ns);
      }
      for (Pod p : BatonPods.candidates(client, g)) {
        for (Container c : BatonPods.agents(p)) {
          sources.add(
              new Source(
                  p, c.getName(), "[" + p.getMetadata().getName() + "/" + c.getName() + "] "));
        }
      }
      if (sources.isEmpty()) {
        throw new Refused(
            "no Baton agent runs in the pods of LeaderGroup "
                + ns
                + "/"
                + group
                + " (a container named "
                + BatonPods.AGENT_CONTAINER
                + ", or one with BATON_AGENT_* variables)");
      }
    }
    if (follow) {
      follow(client, sources);
    } else {
      for (Source s : sources) {
        String text = BatonPods.tail(client, s.pod(), s.container(), tail);
        print(session.out, s.prefix(), text);
      }
    }
    return 0;
  }

  private void follow(KubernetesClient client, List<Source> sources) throws InterruptedException {
    List<LogWatch> watches = new ArrayList<>();
    try {
      for (Source s : sources) {
        var log =
            client
                .pods()
                .inNamespace(s.pod().getMetadata().getNamespace())
                .withName(s.pod().getMetadata().getName())
                .inContainer(s.container());
        OutputStream lines = new PrefixedLines(session.out, s.prefix());
        watches.add(tail < 0 ? log.watchLog(lines) : log.tailingLines(tail).watchLog(lines));
      }
      for (LogWatch w : watches) {
        w.onClose().toCompletableFuture().join();
      }
    } finally {
      watches.forEach(LogWatch::close);
    }
  }

  static void print(PrintStream out, String prefix, String text) {
    if (text == null || text.isEmpty()) {
      return;
    }
    for (String line : text.split("\n", -1)) {
      if (!line.isEmpty()) {
        out.println(prefix + line);
      }
    }
  }

  /** Whole lines, each with its prefix, written to a stream several containers share. */
  private static final class PrefixedLines extends OutputStream {
    private final PrintStream out;
    private final String prefix;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    PrefixedLines(PrintStream out, String prefix) {
      this.out = out;
      this.prefix = prefix;
    }

    @Override
    public void write(int b) {
      if (b == '\n') {
        synchronized (out) {
          out.println(prefix + line.toString(StandardCharsets.UTF_8));
        }
        line.reset();
      } else {
        line.write(b);
      }
    }
  }
}
