package dev.baton.agent.leadership;

import dev.baton.client.DaemonThreads;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate key's calls to Redis, one at a time on a thread of their own, so that the leadership
 * loop never waits for Redis (a call may take up to {@code confirmWithin} to fail). Each is sent as
 * the rule asked and its answer posted back as a value, with when it was sent and answered; this
 * class decides nothing: the one guard applied at sending (a renewal may take an absent key again
 * only if sent before the deadline the rule gave it) is the call's own ({@link
 * GateMachine.Renew#mayRetakeIfSentAt}).
 */
final class KeyCalls {

  private static final Logger log = LoggerFactory.getLogger(KeyCalls.class);

  private final GateKey gateKey;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("baton-agent-gate-key"));

  KeyCalls(GateKey gateKey) {
    this.gateKey = gateKey;
  }

  /** Calls {@code changed} with a key's name whenever a hold of it changes. */
  void listen(Consumer<String> changed) {
    gateKey.listen(changed, thread);
  }

  /** Sends {@code call} and posts what came of it. */
  void send(GateMachine.Call call, Consumer<GateMachine.Input> post) {
    run(
        () -> {
          long sent = System.nanoTime();
          if (call instanceof GateMachine.ReadFacts f) {
            GateKey.RedisFacts facts = attempt(f.key(), () -> gateKey.redisFacts(f.key()));
            post.accept(new GateMachine.FactsRead(f.key(), sent, System.nanoTime(), facts));
            return;
          }
          GateKey.Answer answer = attempt(key(call), () -> script(call, sent));
          post.accept(new GateMachine.Answered(call, sent, System.nanoTime(), answer));
        });
  }

  private GateKey.Answer script(GateMachine.Call call, long sent) {
    if (call instanceof GateMachine.Take t) {
      return gateKey.take(t.key(), t.hold(), t.term(), t.expected());
    }
    if (call instanceof GateMachine.Renew n) {
      return gateKey.renew(
          n.hold().key(),
          n.hold().value(),
          n.hold().term(),
          n.mayRetakeIfSentAt(sent) ? n.retakeAs() : "",
          n.prove());
    }
    if (call instanceof GateMachine.LetGo l) {
      return gateKey.letGo(l.hold().key(), l.hold().value());
    }
    return gateKey.holder(key(call));
  }

  private static String key(GateMachine.Call call) {
    if (call instanceof GateMachine.Take t) {
      return t.key();
    }
    if (call instanceof GateMachine.Renew n) {
      return n.hold().key();
    }
    if (call instanceof GateMachine.LetGo l) {
      return l.hold().key();
    }
    if (call instanceof GateMachine.ReadHolder h) {
      return h.key();
    }
    return ((GateMachine.ReadFacts) call).key();
  }

  private static <T> T attempt(String key, java.util.function.Supplier<T> script) {
    try {
      return script.get();
    } catch (IllegalStateException e) {
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
