package dev.baton.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image build's training run: the shipped operator jar, in its own process, writes a class
 * archive that a later start of the same jar on the same JVM, through the image's entrypoint, maps
 * instead of loading classes; and an archive that cannot be used never costs the start.
 */
class ClassArchiveTrainingIT {

  /** Built by the operator module earlier in the same reactor build. */
  private static final Path OPERATOR_JAR =
      Path.of("..", "operator", "target", "baton-operator.jar");

  /** The image's entrypoint, as the Dockerfile copies it. */
  private static final Path ENTRYPOINT =
      Path.of("..", "operator", "src", "main", "image", "baton-operator");

  @TempDir Path dir;

  /** Laid out as the image's /app: the jar, then the archive trained for that very file. */
  private Path jar() throws Exception {
    Path jar = dir.resolve("baton-operator.jar");
    if (!Files.exists(jar)) {
      Files.copy(OPERATOR_JAR, jar);
    }
    return jar;
  }

  @Test
  void trainingWritesAnArchiveThatTheEntrypointMapsWithSharingRequired() throws Exception {
    assertThat(OPERATOR_JAR).as("package the operator module first").isRegularFile();
    Path archive = dir.resolve("baton-operator.jsa");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit =
        ClassArchiveTraining.train(
            jar(), archive, new PrintStream(bytes, true, StandardCharsets.UTF_8));

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(out).isZero();
    assertThat(out).contains("Every step converged.").contains("Wrote " + archive);
    assertThat(Files.size(archive)).isPositive();

    // As the image starts: through its entrypoint, with -Xshare:on, which refuses to start at all
    // when the archive cannot be mapped (the Dockerfile's last training step does the same).
    Path classLog = dir.resolve("class-load.log");
    Run started =
        run(
            Map.of(
                "BATON_HOME",
                dir.toString(),
                "BATON_JVM_OPTIONS",
                "-Xshare:on -Xlog:class+load=info:file=" + classLog),
            "sh",
            ENTRYPOINT.toString(),
            "version");
    assertThat(started.exit()).as(started.output()).isZero();
    assertThat(started.output()).startsWith("baton-operator 0.").doesNotContain("NOTE: Picked up");
    assertThat(Files.readAllLines(classLog))
        .anyMatch(
            line ->
                line.contains(" dev.baton.operator.BatonOperator ")
                    && line.contains("source: shared objects file (top)"));
  }

  @Test
  void anEmptyArchiveStopsTheJvmButTheEntrypointStartsWithoutIt() throws Exception {
    Path jar = jar();
    Path archive = dir.resolve("baton-operator.jsa");
    Files.writeString(archive, "");

    Run named =
        run(
            Map.of(),
            java(),
            "-Xshare:on",
            "-XX:SharedArchiveFile=" + archive,
            "-jar",
            jar.toString(),
            "version");
    assertThat(named.exit()).as("named by hand, an empty archive: " + named.output()).isNotZero();

    Run entrypoint =
        run(Map.of("BATON_HOME", dir.toString()), "sh", ENTRYPOINT.toString(), "version");
    assertThat(entrypoint.exit()).as(entrypoint.output()).isZero();
    assertThat(entrypoint.output()).startsWith("baton-operator 0.");
  }

  private record Run(int exit, String output) {}

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** Runs a command with this JVM's java first on PATH, and no JVM options from the outside. */
  private Run run(Map<String, String> env, String... command) throws Exception {
    Path output = Files.createTempFile(dir, "run", ".log");
    ProcessBuilder pb =
        new ProcessBuilder(List.of(command))
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    pb.environment().remove("JDK_JAVA_OPTIONS");
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    pb.environment().remove("BATON_JVM_OPTIONS");
    pb.environment()
        .put(
            "PATH",
            Path.of(System.getProperty("java.home"), "bin")
                + java.io.File.pathSeparator
                + System.getenv("PATH"));
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as(String.join(" ", command)).isTrue();
    return new Run(p.exitValue(), Files.readString(output));
  }
}
