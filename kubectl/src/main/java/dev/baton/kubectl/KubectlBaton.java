package dev.baton.kubectl;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * {@code kubectl baton}: Baton's view and levers for a person at a terminal, through the user's
 * kubeconfig, kubectl's flags and RBAC. It reads only what the API server shows (the operator's
 * status, pods, Services, Events, logs); Redis credentials never reach a laptop.
 *
 * <p>Exit codes, as kubectl's: 0 done, 1 refused or failed (the API server said no, the operator
 * refused, a wait timed out), 2 the command line was wrong. Errors go to stderr as {@code error:
 * ...}.
 */
public final class KubectlBaton {

  private KubectlBaton() {}

  public static void main(String[] args) {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
    int exit = run(args, KubeFlags::open, true, out, err);
    out.flush();
    System.exit(exit);
  }

  /**
   * Runs one command against a client the caller owns (tests); flags that pick a cluster are read
   * but the client is this one.
   */
  public static int run(String[] args, KubernetesClient client, PrintStream out, PrintStream err) {
    return run(args, flags -> client, false, out, err);
  }

  /** Runs one command; returns its exit code. */
  static int run(
      String[] args,
      Function<KubeFlags, KubernetesClient> opener,
      boolean closeClient,
      PrintStream out,
      PrintStream err) {
    try (Session session = new Session(out, err, opener, closeClient)) {
      if (args.length > 0 && args[0].startsWith("__complete")) {
        return Completion.candidates(session, List.of(args).subList(1, args.length));
      }
      CommandLine line = Commands.line(session);
      line.setOut(new PrintWriter(out, true));
      line.setErr(new PrintWriter(err, true));
      line.setParameterExceptionHandler((e, a) -> usageError(e, err));
      line.setExecutionExceptionHandler((e, cmd, parsed) -> failure(e, err));
      return line.execute(args);
    }
  }

  private static int usageError(ParameterException e, PrintStream err) {
    CommandLine cmd = e.getCommandLine();
    String message = e.getMessage();
    if (e instanceof UnmatchedArgumentException u
        && cmd.getParent() == null
        && !u.getUnmatched().isEmpty()
        && !u.getUnmatched().get(0).startsWith("-")) {
      message = "unknown command \"" + u.getUnmatched().get(0) + "\" for \"kubectl baton\"";
    }
    err.println("error: " + message);
    err.println("See '" + cmd.getCommandSpec().qualifiedName() + " --help' for usage.");
    return 2;
  }

  private static int failure(Exception e, PrintStream err) {
    if (e instanceof Refused) {
      err.println("error: " + e.getMessage());
    } else if (e instanceof KubernetesClientException k) {
      err.println("error: " + apiMessage(k));
    } else {
      err.println("error: " + e);
    }
    return 1;
  }

  /** The API server's own words, as kubectl prints them (e.g. a 403's "... is forbidden: ..."). */
  static String apiMessage(KubernetesClientException e) {
    if (e.getStatus() != null && e.getStatus().getMessage() != null) {
      return e.getStatus().getMessage();
    }
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause == e ? e.getMessage() : e.getMessage() + " (" + cause + ")";
  }
}
