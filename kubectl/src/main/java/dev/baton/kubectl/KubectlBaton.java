package dev.baton.kubectl;

import dev.baton.client.GoDuration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintStream;
import java.time.Duration;

/**
 * {@code kubectl baton}: Baton's view and levers for a person at a terminal, through the user's
 * kubeconfig and RBAC. It reads only what the API server shows (the operator's status, pods,
 * Services, Events); Redis credentials never reach a laptop.
 */
public final class KubectlBaton {

  static final String USAGE =
      """
      usage: kubectl baton [-n NAMESPACE] COMMAND ...

        status [GROUP]              the groups (or one): Redis holder and term as the operator
                                    recorded them, pods with roles and readiness, the leader
                                    Services' endpoints, the last failovers; and the locks
        switchover GROUP [--to POD] hand leadership to POD (default: the best ready follower)
        pause GROUP                 freeze leadership (spec.paused: true)
        resume GROUP                elect again (spec.paused: false)
        release LOCK                force-release a RedisLock, whoever holds it

      options:
        -n, --namespace NAMESPACE   default: the kubeconfig context's namespace
        --no-wait                   change, print, and return without waiting for the result
        --timeout DURATION          how long to wait for the result (default 60s)
      """;

  private KubectlBaton() {}

  public static void main(String[] args) {
    int exit;
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      exit = run(args, client, System.out, System.err);
    }
    System.exit(exit);
  }

  /** Runs one command; returns the exit code (0 done, 1 refused or failed, 2 bad usage). */
  public static int run(String[] args, KubernetesClient client, PrintStream out, PrintStream err) {
    Invocation call;
    try {
      call = Invocation.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("kubectl baton: " + e.getMessage());
      err.print(USAGE);
      return 2;
    }
    if (call.command().equals("help")) {
      out.print(USAGE);
      return 0;
    }
    String namespace = call.namespace() != null ? call.namespace() : client.getNamespace();
    if (namespace == null) {
      namespace = "default";
    }
    Levers levers = new Levers(client, namespace, out, call.waitForResult(), call.timeout());
    try {
      return switch (call.command()) {
        case "status" -> new StatusReport(client, namespace, out).print(call.target());
        case "switchover" -> levers.switchover(call.required("GROUP"), call.to());
        case "pause" -> levers.pause(call.required("GROUP"), true);
        case "resume" -> levers.pause(call.required("GROUP"), false);
        case "release" -> levers.release(call.required("LOCK"));
        default -> throw new IllegalStateException("unreachable: " + call.command());
      };
    } catch (IllegalArgumentException e) {
      err.println("kubectl baton: " + e.getMessage());
      return 2;
    } catch (KubernetesClientException e) {
      err.println(
          "kubectl baton: the API server refused: "
              + (e.getStatus() != null && e.getStatus().getMessage() != null
                  ? e.getStatus().getMessage()
                  : e.getMessage()));
      return 1;
    }
  }

  /** The parsed command line. */
  record Invocation(
      String command,
      String target,
      String namespace,
      String to,
      boolean waitForResult,
      Duration timeout) {

    static Invocation parse(String[] args) {
      String command = null;
      String target = null;
      String namespace = null;
      String to = null;
      boolean wait = true;
      Duration timeout = Duration.ofSeconds(60);
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "-n", "--namespace" -> namespace = value(args, ++i, a);
          case "--to" -> to = value(args, ++i, a);
          case "--no-wait" -> wait = false;
          case "--timeout" -> timeout = duration(value(args, ++i, a));
          case "-h", "--help" -> command = "help";
          default -> {
            if (a.startsWith("--namespace=")) {
              namespace = a.substring("--namespace=".length());
            } else if (a.startsWith("--to=")) {
              to = a.substring("--to=".length());
            } else if (a.startsWith("--timeout=")) {
              timeout = duration(a.substring("--timeout=".length()));
            } else if (a.startsWith("-")) {
              throw new IllegalArgumentException("unknown option " + a);
            } else if (command == null) {
              command = a;
            } else if (target == null) {
              target = a;
            } else {
              throw new IllegalArgumentException("unexpected argument " + a);
            }
          }
        }
      }
      if (command == null) {
        throw new IllegalArgumentException("no command given");
      }
      if (!java.util.Set.of("status", "switchover", "pause", "resume", "release", "help")
          .contains(command)) {
        throw new IllegalArgumentException("unknown command " + command);
      }
      if (to != null && !command.equals("switchover")) {
        throw new IllegalArgumentException("--to belongs to switchover");
      }
      return new Invocation(command, target, namespace, to, wait, timeout);
    }

    String required(String what) {
      if (target == null) {
        throw new IllegalArgumentException(command + " needs a " + what);
      }
      return target;
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return args[i];
    }

    private static Duration duration(String text) {
      try {
        return GoDuration.parse(text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--timeout takes a duration such as 30s, got " + text);
      }
    }
  }
}
