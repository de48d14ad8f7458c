package dev.baton.bench.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** Connections each sending 1 KiB and reading the 1 KiB echo, one round trip at a time. */
final class Overhead {

  static final int SIZE = 1024;
  static final long WARM_UP_MILLIS = 3000;
  static final long MEASURE_MILLIS = 5000;

  /**
   * Round trips per second, latency, and CPU per round trip (µs) of this JVM (the clients and the
   * echo server) and of the agent's process, while measuring.
   */
  record Result(
      double perSecond,
      double p50Micros,
      double p99Micros,
      double benchCpuMicros,
      double agentCpuMicros) {}

  private final InetAddress host;
  private final int port;
  private final int connections;
  private final long agentPid;

  Overhead(int port, int connections, long agentPid) {
    this(InetAddress.getLoopbackAddress(), port, connections, agentPid);
  }

  /** Through {@code host}: a follower's agent, on its pod's own address, in relay mode. */
  Overhead(InetAddress host, int port, int connections, long agentPid) {
    this.host = host;
    this.port = port;
    this.connections = connections;
    this.agentPid = agentPid;
  }

  /** CPU time (user + system) of a process so far, in µs, from /proc/<pid>/stat. */
  static long cpuMicros(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
    return ticks * 1_000_000 / 100; // USER_HZ is 100 on Linux
  }

  static String describe() {
    return "Client threads in the benchmark JVM, each its own connection, one round trip at a time;"
        + " "
        + WARM_UP_MILLIS / 1000
        + " s warm-up, then "
        + MEASURE_MILLIS / 1000
        + " s measured. The target is the echo server in the benchmark JVM, the gate the leader's"
        + " agent process; all on one 2-core machine, so the gate's threads compete with the"
        + " clients' for the CPU. CPU per round trip: user + system time from /proc/<pid>/stat"
        + " (10 ms ticks) over the measured seconds, divided by the round trips; the benchmark"
        + " JVM's includes the idle operator's.";
  }

  Result run() throws Exception {
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong count = new AtomicLong();
    List<long[]> samples = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    CountDownLatch connected = new CountDownLatch(connections);
    for (int i = 0; i < connections; i++) {
      long[] mine = new long[2_000_000];
      samples.add(mine);
      Thread t =
          new Thread(
              () -> {
                int n = 0;
                byte[] out = new byte[SIZE];
                byte[] in = new byte[SIZE];
                try (Socket s = new Socket(host, port)) {
                  s.setTcpNoDelay(true);
                  connected.countDown();
                  OutputStream o = s.getOutputStream();
                  InputStream r = s.getInputStream();
                  while (!stop.get()) {
                    long start = System.nanoTime();
                    o.write(out);
                    int got = 0;
                    while (got < SIZE) {
                      int k = r.read(in, got, SIZE - got);
                      if (k < 0) {
                        throw new IOException("closed");
                      }
                      got += k;
                    }
                    if (measuring.get() && n < mine.length - 1) {
                      mine[++n] = System.nanoTime() - start;
                      count.incrementAndGet();
                    }
                  }
                } catch (IOException e) {
                  connected.countDown();
                }
                mine[0] = n;
              });
      threads.add(t);
      t.start();
    }
    connected.await();
    Thread.sleep(WARM_UP_MILLIS);
    long self = ProcessHandle.current().pid();
    long benchCpu = cpuMicros(self);
    long agentCpu = cpuMicros(agentPid);
    measuring.set(true);
    long start = System.nanoTime();
    Thread.sleep(MEASURE_MILLIS);
    measuring.set(false);
    long took = System.nanoTime() - start;
    benchCpu = cpuMicros(self) - benchCpu;
    agentCpu = cpuMicros(agentPid) - agentCpu;
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    List<Long> all = new ArrayList<>();
    for (long[] s : samples) {
      for (int i = 1; i <= s[0]; i++) {
        all.add(s[i]);
      }
    }
    all.sort(null);
    double p50 = all.isEmpty() ? Double.NaN : all.get(all.size() / 2) / 1000.0;
    double p99 = all.isEmpty() ? Double.NaN : all.get((int) (all.size() * 0.99)) / 1000.0;
    double n = Math.max(1, count.get());
    return new Result(count.get() * 1e9 / took, p50, p99, benchCpu / n, agentCpu / n);
  }
}
