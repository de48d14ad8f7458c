package dev.baton.kubectl;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Parameters;

/**
 * Shell completion. {@code kubectl baton completion bash|zsh} prints a script for the shell; both
 * ask the plugin itself, through the hidden {@code __complete} command, what may come next: a
 * command, a flag, or the name of a LeaderGroup, RedisLock, pod, namespace or context read from the
 * cluster the line names (its --context, --kubeconfig and -n). {@code __complete} speaks the
 * protocol kubectl (1.26 and later) uses for plugins, a candidate a line and then {@code
 * :<directive>}, so {@code kubectl_complete-baton} ({@code completion kubectl} prints it) makes
 * {@code kubectl baton <TAB>} complete inside kubectl's own completion too.
 */
final class Completion {

  /** Cobra's directives: complete nothing else, or fall back to file names. */
  static final int NO_FILES = 4;

  static final int FILES = 0;

  private Completion() {}

  @Command(
      name = "completion",
      mixinStandardHelpOptions = true,
      description = {
        "Print a completion script: bash, zsh, or kubectl (the kubectl_complete-baton file that"
            + " kubectl 1.26+ runs to complete kubectl baton).",
        "  bash:    source <(kubectl-baton completion bash)",
        "  zsh:     source <(kubectl-baton completion zsh)",
        "  kubectl: kubectl-baton completion kubectl > ~/bin/kubectl_complete-baton &&"
            + " chmod +x ~/bin/kubectl_complete-baton"
      })
  static final class Scripts implements Callable<Integer> {
    @Parameters(paramLabel = "SHELL", description = "bash, zsh or kubectl.")
    Shell shell;

    @CommandLine.Spec CommandSpec spec;

    enum Shell {
      bash,
      zsh,
      kubectl
    }

    @Override
    public Integer call() {
      spec.commandLine().getOut().print(CompletionScripts.of(shell.name()));
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  /**
   * Answers {@code __complete WORD... CURRENT}: the candidates for CURRENT, one a line, then the
   * directive. Never fails: a cluster that cannot be read gives no names.
   */
  static int candidates(Session session, List<String> words) {
    List<String> before = words.isEmpty() ? List.of() : words.subList(0, words.size() - 1);
    String current = words.isEmpty() ? "" : words.get(words.size() - 1);
    CommandLine root = Commands.line(session);
    CommandSpec spec = root.getCommandSpec();
    OptionSpec pending = null;
    List<String> positionals = new ArrayList<>();
    for (String w : before) {
      if (pending != null) {
        flag(session, pending, w);
        pending = null;
      } else if (w.startsWith("-") && w.contains("=")) {
        OptionSpec o = spec.findOption(w.substring(0, w.indexOf('=')));
        if (o != null) {
          flag(session, o, w.substring(w.indexOf('=') + 1));
        }
      } else if (w.startsWith("-")) {
        OptionSpec o = spec.findOption(w);
        if (o != null && o.arity().max() > 0 && !o.type().equals(boolean.class)) {
          pending = o;
        }
      } else if (spec == root.getCommandSpec() && spec.subcommands().containsKey(w)) {
        spec = spec.subcommands().get(w).getCommandSpec();
      } else {
        positionals.add(w);
      }
    }
    List<String> out = new ArrayList<>();
    int directive = NO_FILES;
    if (pending != null) {
      directive = values(session, pending, positionals, out);
    } else if (current.startsWith("-")) {
      for (OptionSpec o : spec.options()) {
        if (!o.hidden()) {
          out.addAll(List.of(o.names()));
        }
      }
    } else if (spec == root.getCommandSpec()) {
      for (Map.Entry<String, CommandLine> sub : spec.subcommands().entrySet()) {
        if (!sub.getValue().getCommandSpec().usageMessage().hidden()) {
          out.add(sub.getKey());
        }
      }
    } else if (positionals.isEmpty()) {
      switch (spec.name()) {
        case "status", "switchover", "pause", "resume", "logs", "report" ->
            names(session, LeaderGroup.class, out);
        case "release" -> names(session, RedisLock.class, out);
        case "completion" -> out.addAll(List.of("bash", "zsh", "kubectl"));
        default -> {}
      }
    }
    for (String candidate : out) {
      if (candidate.startsWith(current)) {
        session.out.println(candidate);
      }
    }
    session.out.println(":" + directive);
    return 0;
  }

  private static void flag(Session session, OptionSpec o, String value) {
    switch (o.longestName()) {
      case "--namespace" -> session.flags.namespace = value;
      case "--context" -> session.flags.context = value;
      case "--kubeconfig" -> session.flags.kubeconfig = value;
      case "--as" -> session.flags.as = value;
      default -> {}
    }
  }

  private static int values(
      Session session, OptionSpec o, List<String> positionals, List<String> out) {
    switch (o.longestName()) {
      case "--namespace" -> {
        try {
          session.client().namespaces().list().getItems().stream()
              .map(n -> n.getMetadata().getName())
              .forEach(out::add);
        } catch (RuntimeException e) {
          // a user who may not list namespaces gets no names, as with kubectl
        }
      }
      case "--context" -> {
        try {
          out.addAll(session.flags.contexts());
        } catch (RuntimeException e) {
          // an unreadable kubeconfig: no names
        }
      }
      case "--output" -> out.addAll(List.of("json", "yaml"));
      case "--to" -> {
        try {
          KubernetesClient client = session.client();
          client.pods().inNamespace(session.namespace()).list().getItems().stream()
              .map(p -> p.getMetadata().getName())
              .forEach(out::add);
        } catch (RuntimeException e) {
          // no names
        }
      }
      case "--kubeconfig", "--file" -> {
        return FILES;
      }
      default -> {}
    }
    return NO_FILES;
  }

  private static <T extends HasMetadata> void names(
      Session session, Class<T> type, List<String> out) {
    try {
      session.client().resources(type).inNamespace(session.namespace()).list().getItems().stream()
          .map(r -> r.getMetadata().getName())
          .sorted()
          .forEach(out::add);
    } catch (RuntimeException e) {
      // a cluster that cannot be reached or read gives no names
    }
  }
}
