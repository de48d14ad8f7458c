package dev.baton.agent.gate;

import dev.baton.agent.config.GateRoute;
import dev.baton.agent.eventloop.EventLoop;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.threads.AgentThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One event loop of a {@link Gate}: a thread and a selector that carry both directions of the
 * connections given to it. Bytes go through one direct buffer per loop, so the JDK copies nothing
 * on the way; a direction keeps a buffer of its own only while its receiver is slower than its
 * sender, and reads nothing more from the sender until that buffer drained (back-pressure).
 *
 * <p>Everything but {@link #forward}, {@link #cut} and {@link #stop} runs on the loop's thread, so
 * its connections need no lock; those three queue their work for it. A channel registered with a
 * selector is only closed, and its RST only sent, when the selector deregisters it: the cut does
 * that at once ({@code selectNow}) before it counts down its latch.
 */
final class GateLoop {

  private static final Logger log = LoggerFactory.getLogger(GateLoop.class);
  private static final long CONNECT_TIMEOUT_NANOS = 1_000_000_000L;

  private static final long STALL_CHECK_NANOS = 1_000_000_000L;

  /**
   * Relays' preambles one loop reads at once; the oldest is reset to make room. A relay sends its
   * line at once, so it is read long before a crowd of slow ones could push it out.
   */
  static final int MAX_PREAMBLES = 1024;

  final GateRoute route;
  final InetSocketAddress target;
  final AgentMetrics metrics; // null: a relay's loop, whose connections the gate does not count
  final Runnable ended;
  private final GateLimits limits;
  final Selector selector;
  final LongPredicate mayRelay;
  private final Thread thread;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private volatile boolean stopped;
  private boolean shut; // guarded by this
  private ServerSocketChannel server;
  private Consumer<SocketChannel> onAccept;
  // The loop thread's alone:
  final Set<Forwarding> forwardings = new HashSet<>();
  final List<Forwarding> connecting = new ArrayList<>();
  private final java.util.ArrayDeque<Preamble> preambles = new java.util.ArrayDeque<>();
  private java.util.function.BiConsumer<SocketChannel, String> onPreamble;
  Untouched untouched;
  final GateBuffers buffers;
  final java.util.concurrent.Semaphore budget;
  private long stallChecked;

  /**
   * What the loops of one gate (or of one relay) share.
   *
   * @param target where each connection is forwarded; null for a relay's loop, which is given both
   *     ends connected ({@link #carry})
   * @param metrics where the connections are counted; null: they are not (a relay's)
   * @param mayRelay whether a byte may be relayed at a {@link System#nanoTime()}: checked after
   *     every wake-up and before every write
   * @param ended told once of every connection that ended, broke or was cut
   * @param pending the budget of buffers for slower peers
   */
  record Shared(
      GateRoute route,
      InetSocketAddress target,
      AgentMetrics metrics,
      LongPredicate mayRelay,
      Runnable ended,
      GateLimits limits,
      java.util.concurrent.Semaphore pending,
      AgentThreads threads) {}

  GateLoop(String name, Shared shared) throws IOException {
    this.route = shared.route();
    this.target = shared.target();
    this.metrics = shared.metrics();
    this.mayRelay = shared.mayRelay();
    this.ended = shared.ended();
    this.limits = shared.limits();
    this.budget = shared.pending();
    this.buffers = new GateBuffers(budget);
    this.selector = Selector.open();
    this.thread = shared.threads().thread(name, this::run);
  }

  /**
   * Before {@link #start}: this loop accepts on {@code s} and gives each connection to {@code c}.
   */
  void accepting(ServerSocketChannel s, Consumer<SocketChannel> c) throws IOException {
    server = s;
    onAccept = c;
    s.register(selector, SelectionKey.OP_ACCEPT);
  }

  void start() {
    thread.start();
  }

  /**
   * Any thread: forwards {@code client} on this loop.
   *
   * @param saysPassing a relay's connection that is told {@link Gate#PASSING} before the first byte
   *     passes, or {@link Gate#HANDED_BACK} if it ends first
   */
  void forward(SocketChannel client, boolean saysPassing) {
    Runnable start =
        () -> {
          Forwarding f = new Forwarding(this, client, null);
          f.saysPassing = saysPassing;
          f.connect();
        };
    if (Thread.currentThread() == thread) {
      start.run();
    } else {
      submit(start);
    }
  }

  /**
   * On this loop's thread: reads a relay's preamble from {@code client} as it arrives, then gives
   * the line to {@code done} on this thread; a preamble that does not end within its deadline, or
   * is pushed out by {@link #MAX_PREAMBLES} newer ones, is reset.
   */
  void readPreamble(
      SocketChannel client, java.util.function.BiConsumer<SocketChannel, String> done) {
    onPreamble = done;
    try {
      client.configureBlocking(false);
      if (preambles.size() >= MAX_PREAMBLES) {
        bounded("preambles");
        Sockets.rst(preambles.poll().channel);
      }
      Preamble p = new Preamble(client);
      client.register(selector, SelectionKey.OP_READ, p);
      preambles.add(p);
    } catch (IOException | ClosedSelectorException e) {
      Sockets.rst(client);
    }
  }

  private void preambleReady(SelectionKey key, Preamble p) {
    String line;
    try {
      line = p.read();
    } catch (IOException e) {
      log.debug("gate {}: not a relay's preamble: {}", route, e.getMessage());
      preambles.remove(p);
      Sockets.rst(p.channel);
      return;
    }
    if (line == null) {
      return;
    }
    preambles.remove(p);
    // Off this selector before it is registered for forwarding (here or on another loop): the
    // next selection, which runs before the queued task, completes the cancel.
    key.cancel();
    submit(() -> onPreamble.accept(p.channel, line));
  }

  private void expirePreambles() {
    long now = System.nanoTime();
    while (!preambles.isEmpty() && preambles.peek().expired(now)) {
      Preamble p = preambles.poll();
      log.debug("gate {}: a relay's preamble did not arrive in time", route);
      Sockets.rst(p.channel);
    }
  }

  /**
   * A relay's loop: where a client goes whose target ended or broke before a byte moved either way,
   * or that handed it back unpassed (a leader's gate that shut in the moment after it took the
   * connection), instead of being reset with it.
   */
  interface Untouched {
    /**
     * On the loop's thread, the client off its selector, with what {@link #carry} was given and the
     * client's bytes read and sent to that gate, which it did not pass on (null: none).
     */
    void handBack(SocketChannel client, Object carried, Unpassed unpassed);

    /**
     * On the loop's thread: a client is reset before its gate said whether it passed the client's
     * bytes on ({@code why}); counted, since the client cannot know whether they reached an app.
     */
    void lost(String why);
  }

  /** Before {@link #start}: clients whose target went before a byte moved go to {@code u}. */
  void handingBack(Untouched u) {
    untouched = u;
  }

  /**
   * Any thread: carries bytes between {@code client} and {@code target}, both connected; {@code
   * carried} is given back with the client if it is handed back ({@link #handingBack}).
   *
   * @param awaitsPassing the target is a leader's gate that says whether it passes the bytes
   *     ({@link Gate#PASSING}) before any of its app's: until it did, what the client sends is kept
   * @param unpassed the client's bytes that an earlier gate handed back, sent to this one first;
   *     null: none
   */
  void carry(
      SocketChannel client,
      SocketChannel target,
      Object carried,
      boolean awaitsPassing,
      Unpassed unpassed) {
    submit(
        () -> {
          Forwarding f = new Forwarding(this, client, target);
          f.carried = carried;
          f.awaitsPassing = awaitsPassing;
          f.connect();
          if (!f.finished) {
            f.sendFirst(unpassed);
          } else if (unpassed != null) {
            unpassed.release();
          }
        });
  }

  /** Any thread: resets every connection of this loop; the latch counts down once they are. */
  CountDownLatch cut(String reason) {
    CountDownLatch done = new CountDownLatch(1);
    Runnable cut =
        () -> {
          try {
            resetAll(reason);
          } finally {
            done.countDown();
          }
        };
    if (Thread.currentThread() == thread) {
      cut.run();
    } else {
      submit(cut);
    }
    return done;
  }

  /** Runs what was queued when the thread is gone (it ended before it saw it). */
  void runTasksIfStopped() {
    if (!thread.isAlive()) {
      runTasks();
    }
  }

  void stop() {
    stopped = true;
    selector.wakeup();
    if (thread.getState() == Thread.State.NEW) {
      shutDown(); // never started (the gate failed to bind)
    } else if (Thread.currentThread() != thread) {
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  void submit(Runnable task) {
    tasks.add(task);
    selector.wakeup();
  }

  private void runTasks() {
    Runnable task;
    while ((task = tasks.poll()) != null) {
      task.run();
    }
  }

  private void run() {
    try {
      while (!stopped) {
        if (!tasks.isEmpty()) {
          // A cut's own selectNow (flushCloses) may have taken the wake-up of a task queued since.
          selector.selectNow();
        } else if (!connecting.isEmpty() || !preambles.isEmpty()) {
          selector.select(50);
        } else if (buffers.out() > 0) {
          selector.select(STALL_CHECK_NANOS / 1_000_000);
        } else {
          selector.select();
        }
        runTasks();
        if (!forwardings.isEmpty() && !mayRelay.test(System.nanoTime())) {
          // Woken past the deadline (a pause), or the gate shut and its cut is still queued: cut
          // before a byte read now is passed on.
          resetAll("the gate shut, or its deadline passed");
          continue;
        }
        EventLoop.eachReady(selector, this::ready);
        if (!connecting.isEmpty()) {
          expireConnects();
        }
        if (buffers.out() > 0) {
          expireStalls();
        }
        if (!preambles.isEmpty()) {
          expirePreambles();
        }
      }
    } catch (IOException | RuntimeException e) {
      if (!stopped) {
        log.error("gate {}: an event loop failed, its connections go: {}", route, e.toString());
      }
    } finally {
      shutDown();
    }
  }

  private synchronized void shutDown() {
    if (shut) {
      return;
    }
    shut = true;
    runTasks();
    resetAll("the gate stopped");
    preambles.forEach(p -> Sockets.rst(p.channel));
    preambles.clear();
    Sockets.closeQuietly(server);
    try {
      selector.close();
    } catch (IOException e) {
      // stopping anyway
    }
  }

  /** On the loop thread (or once it ended): resets every connection, both sides. */
  private void resetAll(String reason) {
    List<Forwarding> all = List.copyOf(forwardings);
    forwardings.clear();
    connecting.clear();
    for (Forwarding f : all) {
      f.reset();
    }
    flushCloses();
    if (!all.isEmpty() && metrics != null) {
      metrics.gateCut(route.listenPort(), all.size());
      log.info("gate {}: {} connection(s) reset ({})", route, all.size(), reason);
    }
  }

  /**
   * Deregisters the channels closed since the last selection, which closes their sockets. Ready
   * keys of the selection this runs in may belong to connections just reset: they are dropped, and
   * the next selection reports the live ones again (level-triggered).
   */
  private void flushCloses() {
    try {
      if (selector.isOpen()) {
        selector.selectedKeys().clear();
        selector.selectNow();
        selector.selectedKeys().clear();
      }
    } catch (IOException | ClosedSelectorException e) {
      // the selector is going: closing it closes every channel
    }
  }

  private void ready(SelectionKey key) {
    if (Gate.isAccept(key)) {
      accept();
    } else if (key.attachment() instanceof Preamble p) {
      preambleReady(key, p);
    } else {
      ((GateSide) key.attachment()).ready(key);
    }
  }

  private void accept() {
    EventLoop.acceptWaiting(
        server,
        onAccept,
        e -> {
          if (!stopped) {
            log.warn("gate {}: accept failed: {}", route, e.getMessage());
          }
        });
  }

  private void expireConnects() {
    long now = System.nanoTime();
    for (Forwarding f : List.copyOf(connecting)) {
      if (now - f.connectStarted > CONNECT_TIMEOUT_NANOS) {
        log.debug("gate {}: target not reachable: connect timed out", route);
        f.fail();
      }
    }
  }

  /** Resets, about once a second, the connections whose slower side took nothing for a while. */
  private void expireStalls() {
    long now = System.nanoTime();
    if (now - stallChecked < STALL_CHECK_NANOS) {
      return;
    }
    stallChecked = now;
    for (Forwarding f : List.copyOf(forwardings)) {
      if (f.client.stalled(now, limits.stallNanos())
          || f.target.stalled(now, limits.stallNanos())) {
        log.debug("gate {}: a slower peer took nothing for too long, reset", route);
        bounded("stalled");
        f.fail();
      }
    }
  }

  void bounded(String bound) {
    if (metrics != null) {
      metrics.gateBounded(route.listenPort(), bound);
    }
  }
}
