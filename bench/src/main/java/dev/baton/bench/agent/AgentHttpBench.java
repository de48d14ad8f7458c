package dev.baton.bench.agent;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.client.LockKeys;
import dev.baton.operator.BatonOperator;
import dev.baton.testkit.KubernetesUnderTest;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long the agent's HTTP answers take on a kept-alive connection, as most clients use it: the
 * shipped jar as it runs (Nagle's algorithm off), and the same jar with it on as the JDK's server
 * leaves it by default, beside the figures the issue measured before (44 ms an answer).
 */
public final class AgentHttpBench {

  private static final String POD = "http-bench-0";
  private static final String LOCK = "http-bench";
  private static final Pattern LENGTH = Pattern.compile("(?i)content-length: (\\d+)");

  private final BenchConfig config;
  private final Path jar;

  public AgentHttpBench(BenchConfig config) {
    this.config = config;
    this.jar = Path.of(System.getProperty("bench.agentJar", "agent/target/baton-agent.jar"));
  }

  private record Request(String name, String method, String path, double anchorP50) {}

  private static final List<Request> REQUESTS =
      List.of(
          new Request("GET /v1/leadership", "GET", "/v1/leadership", 44.0),
          new Request(
              "GET /v1/leadership?wait=10ms (long poll at its limit)",
              "GET",
              "/v1/leadership?wait=10ms&leader=false",
              56.0),
          new Request(
              "POST /v1/locks/{key} (take)", "POST", "/v1/locks/" + LOCK + "?ttl=30s", 44.0),
          new Request("DELETE /v1/locks/{key} (release)", "DELETE", "/v1/locks/" + LOCK, 44.0),
          new Request("GET /readyz", "GET", "/readyz", Double.NaN));

  public void run(Report report) throws Exception {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar.toAbsolutePath() + " is missing: package the agent");
    }
    Path dir = Files.createDirectories(config.out().resolve("agent-http"));
    int n = Math.max(50, config.processTrials() * 20);
    try (Sandbox cluster =
            new Sandbox(KubernetesUnderTest.fromEnvironment(), BatonOperator::launch, Map.of());
        AgentFleet fleet = new AgentFleet(cluster, jar, dir, AgentBench.CONFIRM_WITHIN)) {
      cluster.createPod(POD, AgentBench.APP);
      cluster.startOperator();
      RedisLock lock = new RedisLock();
      lock.setMetadata(new ObjectMetaBuilder().withName(LOCK).withNamespace(Sandbox.NS).build());
      lock.setSpec(new RedisLockSpec());
      cluster.client.resource(lock).create();
      String reservation = new LockKeys(Sandbox.NS + "/" + LOCK).reservation();
      long giveUp = System.nanoTime() + 20_000_000_000L;
      while (!cluster.redis.command("EXISTS", reservation).equals(":1")) {
        if (System.nanoTime() > giveUp) {
          throw new IllegalStateException("the operator made no reservation for " + LOCK);
        }
        Thread.sleep(20);
      }
      Report.Section s =
          report.section(
              "agent-http",
              "The agent's HTTP answers on a kept-alive connection (ms, from the request written to"
                  + " the whole answer read)",
              "request",
              "samples",
              "Nagle off (shipped): p50",
              "Nagle off: p99",
              "Nagle on (the JDK's default): p50",
              "Nagle on: p99",
              "before this change (issue 52): p50");
      Map<String, Percentiles> on =
          measure(fleet, List.of("-Dsun.net.httpserver.nodelay=false"), n);
      Map<String, Percentiles> off = measure(fleet, List.of(), n);
      for (Request r : REQUESTS) {
        Percentiles a = off.get(r.name());
        Percentiles b = on.get(r.name());
        s.row(r.name(), a.count(), a.p50(), a.p99(), b.p50(), b.p99(), r.anchorP50());
      }
      s.note(
          "One agent (the shipped baton-agent.jar, java -jar, its probes on the same listener),"
              + " one client socket kept open with TCP_NODELAY on the client side, requests in"
              + " turn: take and release alternate on one RedisLock. \"Nagle on\" is the same jar"
              + " run with -Dsun.net.httpserver.nodelay=false, which it honours: the JDK's server"
              + " then writes headers and body apart, and the body waits for the client's delayed"
              + " ACK. The anchor is the issue's measurement of the jar before the change.");
    }
  }

  private Map<String, Percentiles> measure(AgentFleet fleet, List<String> jvm, int n)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvm);
    command.add("-jar");
    command.add(jar.toAbsolutePath().toString());
    fleet.start(POD, command, Map.of());
    int port = fleet.httpPort(POD);
    Map<String, List<Double>> samples = new java.util.LinkedHashMap<>();
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(10_000);
      for (int warm = 0; warm < 50; warm++) {
        for (Request r : REQUESTS) {
          exchange(socket, r);
        }
      }
      for (int i = 0; i < n; i++) {
        for (Request r : REQUESTS) {
          long t0 = System.nanoTime();
          exchange(socket, r);
          samples
              .computeIfAbsent(r.name(), k -> new ArrayList<>())
              .add(AgentBench.millisSince(t0, System.nanoTime()));
        }
      }
    }
    fleet.kill(POD);
    Map<String, Percentiles> out = new java.util.LinkedHashMap<>();
    samples.forEach((k, v) -> out.put(k, Percentiles.of(v)));
    Progress.line("agent http " + jvm + ": " + out);
    return out;
  }

  private static void exchange(Socket s, Request r) throws IOException {
    String head =
        r.method() + " " + r.path() + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n";
    s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
    InputStream in = s.getInputStream();
    StringBuilder answer = new StringBuilder();
    while (answer.length() < 4 || !answer.substring(answer.length() - 4).equals("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("the agent closed the connection");
      }
      answer.append((char) b);
    }
    Matcher m = LENGTH.matcher(answer);
    int length = m.find() ? Integer.parseInt(m.group(1)) : 0;
    byte[] body = in.readNBytes(length);
    String status = answer.substring(0, answer.indexOf("\r\n"));
    if (!status.startsWith("HTTP/1.1 200")) {
      throw new IOException(r.name() + " answered " + status + ": " + new String(body));
    }
  }
}
