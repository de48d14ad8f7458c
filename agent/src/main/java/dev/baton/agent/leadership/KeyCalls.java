package dev.baton.agent.leadership;

import dev.baton.client.DaemonThreads;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate key's calls to Redis, one at a time on a thread of their own, so that the leadership
 * loop never waits for Redis (a call may take up to {@code confirmWithin} to fail); each answer is
 * handed back to the loop, which alone decides what it means. The let-go of a hold runs here too,
 * and so after every call queued before it.
 */
final class KeyCalls {

  private static final Logger log = LoggerFactory.getLogger(KeyCalls.class);

  /** A take's answer; {@code result} null when Redis did not answer. */
  record Taken(
      String key,
      String value,
      long term,
      long sentNanos,
      long answeredNanos,
      GateKey.Take result) {}

  /** A renewal's answer; {@code result} null when Redis did not answer. */
  record Renewed(GateRule.Hold hold, long sentNanos, GateKey.Renewal result) {}

  private final GateKey gateKey;
  private final RedisHealth health;
  private final Executor loop;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("baton-agent-gate-key"));

  KeyCalls(GateKey gateKey, RedisHealth health, Executor loop) {
    this.gateKey = gateKey;
    this.health = health;
    this.loop = loop;
  }

  /** Calls {@code changed} on the loop with a key's name whenever a hold of it changes. */
  void listen(Consumer<String> changed) {
    gateKey.listen(key -> post(() -> changed.accept(key)), thread);
  }

  void take(String key, String value, long term, Consumer<Taken> then) {
    run(
        () -> {
          long sent = System.nanoTime();
          GateKey.Take r = call(key, () -> gateKey.take(key, value));
          Taken t = new Taken(key, value, term, sent, System.nanoTime(), r);
          post(() -> then.accept(t));
        });
  }

  /**
   * @param open whether the gate was open when the loop asked: only then, and only if sent before
   *     the hold's deadline, may an absent key be taken again
   */
  void renew(GateRule.Hold hold, boolean open, Consumer<Renewed> then) {
    run(
        () -> {
          long sent = System.nanoTime();
          boolean retake = open && sent - hold.untilNanos() < 0;
          GateKey.Renewal r =
              call(hold.key(), () -> gateKey.renew(hold.key(), hold.value(), retake));
          if (r == GateKey.Renewal.RETAKEN) {
            log.warn(
                "the gate key {} was lost from Redis while this gate was open; taken again within"
                    + " its deadline, connections kept",
                hold.key());
          }
          Renewed out = new Renewed(hold, sent, r);
          post(() -> then.accept(out));
        });
  }

  /** Marks {@code hold} released: only ever asked for once every connection of it is closed. */
  void letGo(GateRule.Hold hold) {
    run(
        () -> {
          if (call(hold.key(), () -> gateKey.letGo(hold.key(), hold.value())) == null) {
            log.warn("could not let go of the gate key {}; it runs out on its own", hold.key());
          }
        });
  }

  /** The key's live holder and its node's memory policy; {@code then} gets null without answer. */
  void readHolder(String key, Consumer<GateKey.Holder> then) {
    run(
        () -> {
          GateKey.Holder h = call(key, () -> gateKey.holder(key));
          if (h != null) {
            health.memory(h.maxmemory(), h.policy());
          }
          post(() -> then.accept(h));
        });
  }

  private <T> T call(String key, java.util.function.Supplier<T> script) {
    try {
      T r = script.get();
      health.answered(System.nanoTime());
      return r;
    } catch (IllegalStateException e) {
      health.failed(System.nanoTime());
      log.debug("gate key {}: {}", key, e.getMessage());
      return null;
    }
  }

  private void run(Runnable task) {
    try {
      thread.execute(task);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  private void post(Runnable task) {
    try {
      loop.execute(task);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** Waits (a little) for the calls queued so far, such as a last let-go, then stops. */
  void close() {
    try {
      thread.submit(() -> {}).get(2, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.debug("gate key calls still running at close: {}", e.toString());
    }
    gateKey.stopListening();
    thread.shutdownNow();
  }
}
