package dev.baton.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent as the image runs it: its class archive trained by the entrypoint as the Dockerfile
 * asks (a start against an API server and a Redis that do not answer, ended by SIGTERM), mapped by
 * the entrypoint with sharing required; and an empty archive never costs the start.
 */
class AgentImageIT {

  private static final Path JAR = Path.of("target", "baton-agent.jar");
  private static final Path ENTRYPOINT = Path.of("src", "main", "image", "baton-agent");

  @TempDir Path home;

  private record Run(int exit, String output) {}

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private Run run(Map<String, String> env, String... command) throws Exception {
    Path output = Files.createTempFile(home, "run", ".log");
    ProcessBuilder pb =
        new ProcessBuilder(List.of(command))
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("BATON_") || k.startsWith("KUBE"));
    pb.environment().remove("JDK_JAVA_OPTIONS");
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    pb.environment()
        .put("PATH", Path.of(java()).getParent() + File.pathSeparator + System.getenv("PATH"));
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as(String.join(" ", command)).isTrue();
    return new Run(p.exitValue(), Files.readString(output));
  }

  @Test
  void theTrainedArchiveMapsThroughTheEntrypointWithSharingRequired() throws Exception {
    assertThat(JAR).as("package the agent first").isRegularFile();
    Files.copy(JAR, home.resolve("baton-agent.jar"));
    Path archive = home.resolve("baton-agent.jsa");

    Run trained =
        run(
            Map.of("BATON_HOME", home.toString()),
            "sh",
            ENTRYPOINT.toString(),
            "train-class-archive");
    assertThat(trained.exit()).as(trained.output()).isZero();
    assertThat(trained.output()).contains("baton-agent 0.");
    assertThat(Files.size(archive)).as("written on SIGTERM").isPositive();

    // The entrypoint's own options; sharing required and the class log beside them.
    Path classLog = home.resolve("class-load.log");
    Run started =
        run(
            Map.of(
                "BATON_HOME",
                home.toString(),
                "JDK_JAVA_OPTIONS",
                "-Xshare:on -Xlog:class+load=info:file=" + classLog),
            "sh",
            ENTRYPOINT.toString(),
            "version");
    assertThat(started.exit()).as(started.output()).isZero();
    assertThat(started.output()).contains("baton-agent 0.");
    assertThat(Files.readAllLines(classLog))
        .anyMatch(
            line ->
                line.contains(" dev.baton.agent.BatonAgent ")
                    && line.contains("source: shared objects file (top)"));

    Files.writeString(archive, "");
    Run withoutArchive =
        run(Map.of("BATON_HOME", home.toString()), "sh", ENTRYPOINT.toString(), "version");
    assertThat(withoutArchive.exit()).as(withoutArchive.output()).isZero();
    assertThat(withoutArchive.output()).startsWith("baton-agent 0.");
  }
}
