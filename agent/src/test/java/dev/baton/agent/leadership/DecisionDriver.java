package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Feeds {@link LeadershipDecision} one input at a time with a clock of the test's own, keeping the
 * state and the last step's effects: the decision's unit tests drive it with no loop around it.
 */
final class DecisionDriver {

  static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  static final long TTL = 2000 * MS;
  static final long MARGIN = 100 * MS;
  static final String ROLE = "baton.dev/role";
  static final String KEY = HoldKey.name("shop", "g");
  static final String SINCE = "2025-01-01T00:00:00Z";
  static final String REDIS = "run.repl";

  /** Renewal every ttl/4, a take every 20 ms, the holder read every ttl, facts every 5 s. */
  static final LeadershipConfig CONFIG =
      new LeadershipConfig(
          "shop", "p", ROLE, TTL, MARGIN, TTL / 4, 20 * MS, TTL, 5000 * MS, true, "t");

  long now = 1_000_000 * MS;
  AgentState state = AgentState.initial(now);
  List<Effect> effects = List.of();

  /** One step as of now; its effects. */
  List<Effect> feed(Input in) {
    LeadershipDecision.Step step = LeadershipDecision.step(CONFIG, state, in, now);
    state = step.state();
    effects = step.effects();
    return effects;
  }

  List<Effect> tick() {
    return feed(new Input.Tick());
  }

  /** {@code call}, sent at {@code sentAt}, answered now. */
  List<Effect> answer(HoldCall call, long sentAt, HoldKey.Answer answer) {
    return feed(new Input.Answered(call, sentAt, now, answer));
  }

  /** {@code call}, sent now, answered at once by {@code REDIS}. */
  List<Effect> answer(HoldCall call, int code, String found) {
    return answer(call, now, answer(code, found));
  }

  static HoldKey.Answer answer(int code, String found) {
    return new HoldKey.Answer(code, found, REDIS, 0);
  }

  /** The pod of group g, with {@code role}, its term annotation when not null, and its IP. */
  static PodFacts pod(String role, Long term, String ip) {
    Map<String, String> annotations = new HashMap<>();
    annotations.put(BatonNames.GROUP_ANNOTATION, "g");
    annotations.put(BatonNames.LEADER_SINCE_ANNOTATION, SINCE);
    if (term != null) {
      annotations.put(BatonNames.TERM_ANNOTATION, "" + term);
    }
    return podWith(role, annotations, ip);
  }

  /** A ready pod, uid u, with {@code role} and exactly these annotations, and its IP. */
  static PodFacts podWith(String role, Map<String, String> annotations, String ip) {
    return new PodFacts(true, "u", Map.of(ROLE, role), annotations, true, ip);
  }

  /** Seen labeled leader for {@code term} and confirmed for 10 s: the take it sends. */
  HoldCall.Take promoted(long term) {
    feed(new Input.PodSeen(pod(BatonNames.LEADER, term, "10.0.0.5")));
    // Seen before it is believed leader: a follower's read of who holds the key, answered.
    answer(last(HoldCall.ReadHolder.class), 1, "");
    feed(new Input.Belief(true, term, now + 10_000 * MS));
    return last(HoldCall.Take.class);
  }

  /** Promoted, its take answered at once: the gates open. */
  void leading(long term) {
    answer(promoted(term), 1, "");
    assertThat(state.gates().open()).isTrue();
  }

  /** The last effect of the last step of type {@code type}; fails when there is none. */
  <T> T last(Class<T> type) {
    List<T> all = all(type);
    assertThat(all).as("a %s in %s", type.getSimpleName(), effects).isNotEmpty();
    return all.get(all.size() - 1);
  }

  <T> List<T> all(Class<T> type) {
    List<T> all = new ArrayList<>();
    for (Effect e : effects) {
      if (type.isInstance(e)) {
        all.add(type.cast(e));
      }
    }
    return all;
  }

  /** Ticks every 10 ms until {@code until}, answering every take, renewal and read at once. */
  List<Effect> runUntil(long until, int code) {
    List<Effect> seen = new ArrayList<>();
    while (now < until) {
      now += 10 * MS;
      seen.addAll(answerAll(tick(), code));
    }
    return seen;
  }

  private List<Effect> answerAll(List<Effect> step, int code) {
    List<Effect> seen = new ArrayList<>(step);
    for (Effect e : step) {
      if (e instanceof HoldCall call && !(call instanceof HoldCall.ReadFacts)) {
        seen.addAll(answerAll(answer(call, code, ""), code));
      }
    }
    return seen;
  }
}
