package dev.baton.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image build's training run: the shipped operator jar, in its own process, writes a class
 * archive that a later start of the same jar on the same JVM maps instead of loading classes.
 */
class ClassArchiveTrainingIT {

  /** Built by the operator module earlier in the same reactor build. */
  private static final Path OPERATOR_JAR =
      Path.of("..", "operator", "target", "baton-operator.jar");

  @TempDir Path dir;

  @Test
  void trainingWritesAnArchiveThatTheNextStartMaps() throws Exception {
    assertThat(OPERATOR_JAR).as("package the operator module first").isRegularFile();
    Path archive = dir.resolve("baton-operator.jsa");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit =
        ClassArchiveTraining.train(
            OPERATOR_JAR, archive, new PrintStream(bytes, true, StandardCharsets.UTF_8));

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(out).isZero();
    assertThat(out).contains("Every step converged.").contains("Wrote " + archive);
    assertThat(Files.size(archive)).isPositive();

    // A start with the archive: the usage error is enough, the classes load before it.
    Path classLog = dir.resolve("class-load.log");
    Process java =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:SharedArchiveFile=" + archive,
                    "-Xlog:class+load=info:file=" + classLog,
                    "-jar",
                    OPERATOR_JAR.toString(),
                    "no-such-mode"))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("start.log").toFile())
            .start();
    assertThat(java.waitFor(2, TimeUnit.MINUTES)).isTrue();
    String started = Files.readString(dir.resolve("start.log"));
    assertThat(java.exitValue()).as(started).isEqualTo(2);
    assertThat(started).contains("usage").doesNotContain("Unable to use shared archive");
    assertThat(Files.readAllLines(classLog))
        .anyMatch(
            line ->
                line.contains(" dev.baton.operator.BatonOperator ")
                    && line.contains("source: shared objects file (top)"));
  }
}
