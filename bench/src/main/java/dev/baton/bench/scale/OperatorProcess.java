package dev.baton.bench.scale;

import com.sun.tools.attach.VirtualMachine;
import dev.baton.operator.config.OperatorConfig;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The operator as its own process, started the documented way ({@code java -jar
 * baton-operator.jar}) against the embedded API server's URL, so that its CPU time and heap are
 * its own and not the mock server's.
 */
final class OperatorProcess implements AutoCloseable {

  private final Process process;
  private final int httpPort;
  private final HttpClient http = HttpClient.newHttpClient();

  private OperatorProcess(Process process, int httpPort) {
    this.process = process;
    this.httpPort = httpPort;
  }

  static OperatorProcess start(Path jar, String jvmOptions, String kubeUrl, String redisUrl,
      Path log) throws IOException {
    if (!jar.toFile().isFile()) {
      throw new IllegalStateException(jar + " is missing: package the operator first");
    }
    int port = freePort();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Arrays.stream(jvmOptions.trim().split("\\s+")).filter(s -> !s.isEmpty())
        .forEach(command::add);
    command.add("-jar");
    command.add(jar.toAbsolutePath().toString());
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("KUBE") || k.startsWith("BATON_")
        || k.equals("JDK_JAVA_OPTIONS") || k.equals("JAVA_TOOL_OPTIONS"));
    // Fabric8's client configuration from the environment: this URL, nothing else.
    env.put("KUBERNETES_MASTER", kubeUrl);
    env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
    env.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
    env.put(OperatorConfig.REDIS_URL, redisUrl);
    env.put(OperatorConfig.HTTP_PORT, Integer.toString(port));
    env.put(OperatorConfig.LEADER_ELECTION, "false");
    return new OperatorProcess(pb.start(), port);
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** User plus system CPU time of the whole process so far. */
  Duration cpu() {
    return process.info().totalCpuDuration().orElseThrow(
        () -> new IllegalStateException("the CPU time of process " + pid() + " is unknown"));
  }

  /** Whether /readyz answers 200: informers synced, controllers started. */
  boolean ready() {
    try {
      HttpResponse<Void> r = http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz"))
              .timeout(Duration.ofSeconds(1)).build(),
          HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Heap in use right after a full GC, and the live thread count, through the JVM's attach
   * mechanism and its local JMX agent (started in the operator by this call, so only call it
   * after the CPU has been measured).
   */
  Memory memoryAfterGc() throws Exception {
    VirtualMachine vm = VirtualMachine.attach(Long.toString(pid()));
    try {
      String address = vm.startLocalManagementAgent();
      try (JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
        MBeanServerConnection server = c.getMBeanServerConnection();
        MemoryMXBean memory = ManagementFactory.newPlatformMXBeanProxy(server,
            ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
        ThreadMXBean threads = ManagementFactory.newPlatformMXBeanProxy(server,
            ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
        memory.gc();
        var heap = memory.getHeapMemoryUsage();
        var nonHeap = memory.getNonHeapMemoryUsage();
        return new Memory(heap.getUsed(), heap.getCommitted(), heap.getMax(), nonHeap.getUsed(),
            threads.getThreadCount());
      }
    } finally {
      vm.detach();
    }
  }

  record Memory(long heapUsed, long heapCommitted, long heapMax, long nonHeapUsed, int threads) {}

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
