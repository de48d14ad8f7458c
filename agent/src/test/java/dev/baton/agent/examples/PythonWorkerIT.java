package dev.baton.agent.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.BatonAgent;
import dev.baton.agent.config.AgentConfig;
import dev.baton.agent.testing.AgentSandbox;
import dev.baton.agent.threads.AgentThreads;
import dev.baton.client.KubernetesApi;
import dev.baton.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * examples/agent/worker.py, as the examples run it, beside an agent and the real operator: it works
 * only while leading, with the term, takes its lock through the agent, and its app is reached
 * through the gate.
 */
@Timeout(60)
class PythonWorkerIT {

  private static final Path WORKER = Path.of("..", "examples", "agent", "worker.py");

  @TempDir Path dir;
  private AgentSandbox sandbox;
  private Process python;

  @AfterEach
  void stop() {
    if (python != null) {
      python.destroyForcibly();
    }
    if (sandbox != null) {
      sandbox.close();
    }
  }

  @Test
  void theWorkerRunsOnlyWhileLeadingWithItsTermAndItsLock() throws Exception {
    Assumptions.assumeTrue(pythonAvailable(), "python3 is not on PATH");
    sandbox = new AgentSandbox().pods(1).startOperator();
    sandbox.createLock("orders-report");

    int appPort = FreePorts.any();
    Map<String, String> env =
        new java.util.HashMap<>(sandbox.env("worker-0", Duration.ofSeconds(2), true));
    env.put(AgentConfig.GATE, sandbox.gatePort("worker-0") + ":127.0.0.1:" + appPort);
    BatonAgent agent =
        new BatonAgent(
            AgentConfig.fromEnvironment(env),
            KubernetesApi.withoutCredentials(sandbox.api()),
            List.of(),
            new AgentThreads());
    try (agent) {
      Path log = dir.resolve("worker.log");
      ProcessBuilder pb =
          new ProcessBuilder("python3", "-u", WORKER.toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      pb.environment().put("BATON_AGENT", "http://127.0.0.1:" + agent.httpPort());
      pb.environment().put("APP_PORT", Integer.toString(appPort));
      pb.environment().put("POD_NAME", "worker-0");
      pb.environment().put("LOCK_NAME", "orders-report");
      python = pb.start();

      sandbox.group();
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(Files.readString(log))
                      .contains("leading with term 1 in group workers")
                      .contains("write term=1: job step")
                      .containsPattern("write term=lock-token \\d+: report part 0"));

      HttpResponse<String> served =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + sandbox.gatePort("worker-0") + "/"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(served.body()).isEqualTo("served by worker-0\n");

      sandbox.cluster.setReady("worker-0", false);
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> assertThat(Files.readString(log)).contains("no longer leader: stopped"));
    }
  }

  private static boolean pythonAvailable() {
    try {
      return new ProcessBuilder("python3", "--version").start().waitFor() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }
}
