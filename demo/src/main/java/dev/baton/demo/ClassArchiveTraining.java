package dev.baton.demo;

import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.OperatorProcess;
import dev.baton.testkit.Sandbox;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Writes the operator image's class archive (AppCDS): runs the demo's script against the shipped
 * operator jar in a process of its own, started with {@code -XX:ArchiveClassesAtExit}, so that the
 * JVM, when the operator exits, stores every class the start, the first elections, failovers,
 * switchover and lock reaping loaded. A process started with {@code -XX:SharedArchiveFile} on the
 * same JVM and the same jar maps them instead of loading, verifying and linking them again
 * (docs/design.md, "Cold start and the first failover").
 *
 * <p>{@code java -cp baton-demo.jar dev.baton.demo.ClassArchiveTraining <operator jar> <archive>}:
 * run by the image build, on the image's own JVM. Exit code 0 when the script converged and the
 * archive was written.
 */
public final class ClassArchiveTraining {

  /** The image's JVM options that shape what is loaded; the archive does not depend on the heap. */
  static final String JVM_OPTIONS = "-Xmx256m -XX:TieredStopAtLevel=1";

  /** A clean exit stops the operator's controllers first, then the JVM writes the archive. */
  private static final Duration EXIT_GRACE = Duration.ofMinutes(2);

  private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);

  private ClassArchiveTraining() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println(
          "usage: java -cp baton-demo.jar dev.baton.demo.ClassArchiveTraining"
              + " <operator jar> <archive>");
      System.exit(2);
    }
    System.exit(train(Path.of(args[0]), Path.of(args[1]), System.out));
  }

  /** Returns the exit code; the operator's own output goes to a log named in {@code out}. */
  public static int train(Path operatorJar, Path archive, PrintStream out) throws IOException {
    Files.deleteIfExists(archive);
    Path log = Files.createTempFile("baton-class-archive-training", ".log");
    out.println("Training the class archive " + archive + "; the operator's log: " + log);
    EmbeddedKubernetes kube = EmbeddedKubernetes.start();
    Sandbox sandbox =
        new Sandbox(
            kube,
            (env, client) -> {
              OperatorProcess operator =
                  OperatorProcess.ofJar(
                          "class-archive-training",
                          kube,
                          env,
                          operatorJar,
                          JVM_OPTIONS + " -XX:ArchiveClassesAtExit=" + archive.toAbsolutePath(),
                          log)
                      .start();
              awaitReady(operator);
              return () -> operator.terminate(EXIT_GRACE);
            });
    int exit = Demo.run(out, sandbox);
    if (exit != 0) {
      out.println("The script did not converge: no archive kept.");
      Files.deleteIfExists(archive);
      return exit;
    }
    if (!Files.isRegularFile(archive) || Files.size(archive) == 0) {
      out.println("The operator exited without writing " + archive + "; see " + log);
      return 1;
    }
    out.println("Wrote " + archive + " (" + Files.size(archive) / (1024 * 1024) + " MiB).");
    return 0;
  }

  private static void awaitReady(OperatorProcess operator) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (!operator.ready()) {
      if (!operator.alive()) {
        throw new IllegalStateException("the operator exited:\n" + operator.tail(20));
      }
      if (System.nanoTime() > deadline) {
        operator.kill();
        throw new IllegalStateException(
            "the operator was not ready within " + READY_TIMEOUT.toSeconds() + " s");
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted");
      }
    }
  }
}
