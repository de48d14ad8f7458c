package dev.baton.agent.leadership;

import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hold key's calls to Redis, one at a time on a thread of their own, so that the leadership
 * loop never waits for Redis (a call may take up to its timeout to fail). Each is sent as the
 * decision asked and its answer posted back as a value, with when it was sent and answered; this
 * class decides nothing: the one guard applied at sending (a renewal may take an absent key again
 * only if sent before the deadline the decision gave it) is the call's own ({@link
 * HoldCall.Renew#mayRetakeIfSentAt}).
 *
 * @param thread one thread, the calls' own (AgentThreads)
 */
record HoldCalls(HoldKey holdKey, Executor thread) {

  private static final Logger log = LoggerFactory.getLogger(HoldCalls.class);

  /** Sends {@code call} and posts what came of it. */
  void send(HoldCall call, Consumer<Input> post) {
    long asked = System.nanoTime();
    thread.execute(
        () -> {
          long sent = System.nanoTime();
          if (call instanceof HoldCall.ReadFacts f) {
            HoldKey.RedisFacts facts = attempt(f.key(), () -> holdKey.redisFacts(f.key()));
            post.accept(new Input.FactsRead(f.key(), sent, System.nanoTime(), facts));
            return;
          }
          HoldKey.Answer answer = attempt(call.key(), () -> script(call, sent));
          long answered = System.nanoTime();
          if (log.isDebugEnabled()) {
            log.debug(
                "hold key {}: {} answered in {} us, sent {} us after it was asked",
                call.key(),
                call.getClass().getSimpleName(),
                (answered - sent) / 1000,
                (sent - asked) / 1000);
          }
          post.accept(new Input.Answered(call, sent, answered, answer));
        });
  }

  private HoldKey.Answer script(HoldCall call, long sent) {
    if (call instanceof HoldCall.Take t) {
      return holdKey.take(t.key(), t.hold(), t.term(), t.expected());
    }
    if (call instanceof HoldCall.Renew n) {
      return holdKey.renew(
          n.key(),
          n.hold().value(),
          n.hold().term(),
          n.mayRetakeIfSentAt(sent) ? n.retakeAs() : "",
          n.prove());
    }
    if (call instanceof HoldCall.LetGo l) {
      return holdKey.letGo(l.key(), l.hold().value());
    }
    return holdKey.holder(call.key());
  }

  private static <T> T attempt(String key, Supplier<T> script) {
    try {
      return script.get();
    } catch (IllegalStateException e) {
      log.debug("hold key {}: {}", key, e.getMessage());
      return null;
    }
  }
}
