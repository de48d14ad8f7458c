package dev.baton.agent.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.agent.config.GateRoute;
import dev.baton.agent.leadership.LeadershipView;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.testing.Closing;
import dev.baton.agent.threads.AgentThreads;
import dev.baton.testkit.ByteRecorder;
import dev.baton.testkit.FreePorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Connections through a relay while leadership goes back and forth between two real leader-only
 * gates, as a follower sees it: the old gate shuts with connections in every state (preamble sent,
 * taken, bytes sent and unread, bytes passed), the follower learns a moment later that it let go,
 * and the next gate opens. Each client either gets its echo, or is reset after its frame reached an
 * application (a cut, as a direct connection's); none is reset with its frame nowhere.
 */
class RelayHandOverStressTest {

  private static final String A = "127.0.0.41";
  private static final String B = "127.0.0.42";
  private static final int HAND_OVERS = 150;

  private final Closing closing = new Closing();
  private final int leaderOnlyPort = FreePorts.any();
  private final AgentThreads threads = closing.add(new AgentThreads());
  private final ByteRecorder bytes = new ByteRecorder();
  private final AgentMetrics metrics = new AgentMetrics();
  private final AtomicReference<LeadershipView> seen = new AtomicReference<>(holder(null, null));

  RelayHandOverStressTest() {
    closing.add(bytes::close);
  }

  @AfterEach
  void stop() throws Exception {
    closing.close();
  }

  @Test
  void noClientIsResetBeforeItsBytesReachedAnApplication() throws Exception {
    Gate gateA = gate(A, bytes.app("a").port());
    Gate gateB = gate(B, bytes.app("b").port());
    Relay relay =
        new Relay(
            new Relay.Route(
                FreePorts.any(),
                leaderOnlyPort,
                handshake(),
                null,
                Duration.ofSeconds(5),
                Relay.Tries.POD_NETWORK),
            seen::get,
            metrics,
            threads);
    closing.add(relay::close);
    ServerSocketChannel front = ServerSocketChannel.open();
    closing.add(front);
    front.bind(new InetSocketAddress("127.0.0.1", 0));
    ExecutorService accepting = Executors.newSingleThreadExecutor();
    closing.add(accepting::shutdownNow);
    accepting.execute(
        () -> {
          while (front.isOpen()) {
            try {
              SocketChannel c = front.accept();
              relay.take(c);
            } catch (IOException e) {
              return;
            }
          }
        });
    ExecutorService clients = Executors.newCachedThreadPool();
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger cut = new AtomicInteger();
    AtomicInteger lost = new AtomicInteger();
    Random random = new Random(59);
    long term = 1;
    gateA.opened(term);
    seen.set(holder(A, term));
    boolean aLeads = true;
    for (int round = 0; round < HAND_OVERS; round++) {
      for (int i = 0; i < 8; i++) {
        clients.execute(() -> connect(front, answered, cut, lost));
        Thread.sleep(random.nextInt(2));
      }
      Thread.sleep(random.nextInt(4));
      (aLeads ? gateA : gateB).closed("demoted");
      Thread.sleep(random.nextInt(8)); // the follower still names the old holder
      seen.set(holder(null, null));
      Thread.sleep(random.nextInt(8));
      term++;
      (aLeads ? gateB : gateA).opened(term);
      seen.set(holder(aLeads ? B : A, term));
      relay.holderChanged();
      aLeads = !aLeads;
      Thread.sleep(20);
    }
    clients.shutdown();
    assertThat(clients.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    assertThat(answered.get() + cut.get() + lost.get()).isEqualTo(HAND_OVERS * 8);
    assertThat(lost.get()).as("clients reset with their frame at no application").isZero();
    assertThat(answered.get()).as("most are answered").isGreaterThan(HAND_OVERS * 4);
  }

  private void connect(
      ServerSocketChannel front, AtomicInteger answered, AtomicInteger cut, AtomicInteger lost) {
    byte[] frame = ByteRecorder.frame();
    try (Socket s = new Socket()) {
      s.connect(front.getLocalAddress(), 5_000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write(frame);
      if (s.getInputStream().readNBytes(ByteRecorder.FRAME_BYTES).length
          == ByteRecorder.FRAME_BYTES) {
        answered.incrementAndGet();
        return;
      }
    } catch (IOException e) {
      // reset, or ended: where its frame went tells which
    }
    (bytes.reachedBy(ByteRecorder.stampOf(frame)) != null ? cut : lost).incrementAndGet();
  }

  private RelayHandshake handshake() {
    RelayHandshake handshake = new RelayHandshake("shop", leaderOnlyPort, null);
    handshake.groupFrom(() -> "orders");
    return handshake;
  }

  private Gate gate(String ip, int appPort) {
    Gate g =
        new Gate(
            new GateRoute(leaderOnlyPort, "127.0.0.1", appPort),
            Gate.Listening.on(ip, handshake()),
            new AgentMetrics(),
            threads);
    closing.add(g::close);
    return g;
  }

  private static LeadershipView holder(String ip, Long term) {
    return new LeadershipView(
        false, null, "follower", "orders", null, ip == null ? null : "p-" + ip, term, ip);
  }
}
