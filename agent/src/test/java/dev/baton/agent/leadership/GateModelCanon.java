package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.GateModel.TTL;

import dev.baton.agent.gate.GateWindow;
import dev.baton.agent.leadership.GateModel.Agent;
import dev.baton.agent.leadership.GateModel.Flight;
import dev.baton.agent.leadership.GateModel.Read;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link GateModel} world in the one form that every world equal to it shares, so that a world
 * reached along different paths is explored once: every time as of now (now is 0; each agent keeps
 * its clock's offset), times further back than the decision can tell apart clamped; the hold names
 * each agent gave out and the write numbers of the key renumbered in order, keeping only which are
 * equal and which are higher (all the scripts and the decision compare). Exact: the world and its
 * canonical form answer every future action alike.
 */
final class GateModelCanon {

  private GateModelCanon() {}

  private static final Pattern NAME = Pattern.compile("n(\\d+)-(\\d+)");
  private static final Pattern VALUE = Pattern.compile("^([AHR]) (\\d+) (\\d+) (.*)$");

  /** Whether {@code s} may hold a name or a write number: most strings of a world hold neither. */
  private static boolean plain(String s) {
    return s == null || s.isEmpty() || (s.indexOf('-') < 0 && s.indexOf(' ') < 0);
  }

  /** Rewrites the times, strings and counters of a world. */
  private interface Rewrite {
    long time(int agent, long t);

    String text(String s);

    long names(int agent, long n);

    long writes(long w);
  }

  static GateModel of(GateModel w) {
    long delta = -w.now();
    Map<Integer, TreeSet<Long>> names = new HashMap<>();
    TreeSet<Long> seqs = new TreeSet<>();
    java.util.Set<String> scanned = new java.util.HashSet<>();
    Map<String, String> renamed = new HashMap<>();
    // First pass: which names and write numbers are still referenced.
    Rewrite collect =
        new Rewrite() {
          @Override
          public long time(int agent, long t) {
            return t;
          }

          @Override
          public String text(String s) {
            if (!plain(s) && scanned.add(s)) {
              Matcher m = NAME.matcher(s);
              while (m.find()) {
                names
                    .computeIfAbsent(Integer.parseInt(m.group(1)), k -> new TreeSet<>())
                    .add(Long.parseLong(m.group(2)));
              }
              Matcher v = VALUE.matcher(s);
              if (v.matches()) {
                seqs.add(Long.parseLong(v.group(3)));
              }
            }
            return s;
          }

          @Override
          public long names(int agent, long n) {
            return n;
          }

          @Override
          public long writes(long x) {
            seqs.add(x);
            return x;
          }
        };
    rewrite(w, collect);
    Map<Long, Long> seqRank = rank(seqs, 0);
    Map<Integer, Map<Long, Long>> nameRank = new HashMap<>();
    names.forEach((agent, ks) -> nameRank.put(agent, rank(ks, -1)));
    Rewrite canon =
        new Rewrite() {
          @Override
          public long time(int agent, long t) {
            if (t == Long.MIN_VALUE) {
              return t;
            }
            long floor = GateModel.offset(agent) - 3 * TTL;
            return Math.max(t + delta, floor);
          }

          @Override
          public String text(String s) {
            if (plain(s)) {
              return s;
            }
            return renamed.computeIfAbsent(s, this::rename);
          }

          private String rename(String s) {
            Matcher v = VALUE.matcher(s);
            String out = s;
            if (v.matches()) {
              out =
                  v.group(1)
                      + " "
                      + v.group(2)
                      + " "
                      + seqRank.get(Long.parseLong(v.group(3)))
                      + " "
                      + v.group(4);
            }
            Matcher m = NAME.matcher(out);
            StringBuilder b = new StringBuilder();
            while (m.find()) {
              int agent = Integer.parseInt(m.group(1));
              long k = nameRank.get(agent).get(Long.parseLong(m.group(2)));
              m.appendReplacement(b, "n" + agent + "-" + k);
            }
            m.appendTail(b);
            return b.toString();
          }

          @Override
          public long names(int agent, long n) {
            Map<Long, Long> r = nameRank.get(agent);
            return r == null ? 0 : r.size();
          }

          @Override
          public long writes(long x) {
            return seqRank.get(x);
          }
        };
    return rewrite(w, canon).withNow(0);
  }

  /** Each value's rank in order, from {@code base} + 1. */
  private static Map<Long, Long> rank(TreeSet<Long> values, long base) {
    Map<Long, Long> r = new HashMap<>();
    long next = base;
    for (long v : values) {
      r.put(v, ++next);
    }
    return r;
  }

  private static GateModel rewrite(GateModel w, Rewrite r) {
    List<Agent> agents = new ArrayList<>();
    for (int i = 0; i < w.agents().size(); i++) {
      agents.add(agent(w.agents().get(i), i, r));
    }
    List<Flight> flights = new ArrayList<>();
    for (Flight f : w.flights()) {
      flights.add(
          new Flight(
              f.agent(),
              effect(f.call(), f.agent(), r),
              r.time(f.agent(), f.sentAt()),
              f.retake(),
              f.runs(),
              answer(f.answer(), r),
              f.abandoned()));
    }
    List<Read> reads = new ArrayList<>();
    for (Read x : w.reads()) {
      reads.add(new Read(x.agent(), r.time(x.agent(), x.sentAt()), x.leader(), x.term(), x.seen()));
    }
    List<HoldScriptsModel> history = new ArrayList<>();
    for (HoldScriptsModel h : w.history()) {
      history.add(redis(h, r));
    }
    return new GateModel(
        w.now(),
        List.copyOf(agents),
        w.pods(),
        w.termCounter(),
        redis(w.redis(), r),
        List.copyOf(history),
        w.incarnations(),
        w.maxOpened(),
        List.copyOf(flights),
        List.copyOf(reads),
        w.notes(),
        w.budget(),
        w.broke());
  }

  private static HoldScriptsModel redis(HoldScriptsModel h, Rewrite r) {
    return new HoldScriptsModel(
        h.incarnation(), r.text(h.value()), h.highest(), r.writes(h.writes()), h.clockMillis());
  }

  private static HoldKey.Answer answer(HoldKey.Answer a, Rewrite r) {
    return a == null
        ? null
        : new HoldKey.Answer(a.code(), r.text(a.found()), a.incarnation(), a.redisMillis());
  }

  private static Agent agent(Agent a, int i, Rewrite r) {
    UnaryOperator<Long> t = x -> r.time(i, x);
    AgentState s = a.state();
    PodState p = s.pod();
    KeyState k = s.key();
    List<KeyState.LostTake> lost = new ArrayList<>();
    for (KeyState.LostTake l : k.lost()) {
      lost.add(new KeyState.LostTake(l.key(), r.text(l.hold()), l.term(), t.apply(l.sentNanos())));
    }
    KeyState key =
        new KeyState(
            hold(k.hold(), i, r),
            k.callPending(),
            t.apply(k.lastTake()),
            t.apply(k.lastHolderRead()),
            t.apply(k.lastFactsRead()),
            r.names(i, k.names()),
            k.watched() == null
                ? null
                : new KeyState.Watched(
                    k.watched().key(),
                    r.text(k.watched().value()),
                    t.apply(k.watched().sinceNanos())),
            k.presentOn(),
            lost);
    AgentState state =
        new AgentState(
            new PodState(
                p.facts(),
                p.confirmed(),
                p.term(),
                t.apply(p.confirmedUntilNanos()),
                p.newestTerm(),
                p.cut(),
                p.warnedNoGroup()),
            key,
            new GateState(s.gates().open(), t.apply(s.gates().untilNanos())),
            s.leader(),
            s.closing());
    GateWindow w = a.window();
    GateWindow window =
        new GateWindow(w.open(), w.bounded(), w.bounded() ? t.apply(w.untilNanos()) : 0);
    Map<String, Long> bounds = new HashMap<>();
    a.holdBounds().forEach((h, b) -> bounds.put(r.text(h), t.apply(b)));
    return new Agent(
        state,
        window,
        a.offset(),
        a.paused(),
        a.hung(),
        t.apply(a.lastAsked()),
        a.newestTold(),
        t.apply(a.confirmBound()),
        Map.copyOf(bounds));
  }

  private static Hold hold(Hold h, int i, Rewrite r) {
    return h == null
        ? null
        : new Hold(
            h.key(),
            r.text(h.value()),
            h.term(),
            h.proven(),
            r.time(i, h.openAfterNanos()),
            r.time(i, h.untilNanos()),
            r.time(i, h.lastSentNanos()));
  }

  private static HoldCall effect(HoldCall e, int i, Rewrite r) {
    if (e instanceof HoldCall.Take t) {
      return new HoldCall.Take(t.key(), r.text(t.hold()), t.term(), r.text(t.expected()));
    }
    if (e instanceof HoldCall.Renew n) {
      return new HoldCall.Renew(
          hold(n.hold(), i, r), r.text(n.retakeAs()), r.time(i, n.retakeBeforeNanos()), n.prove());
    }
    if (e instanceof HoldCall.LetGo l) {
      return new HoldCall.LetGo(hold(l.hold(), i, r));
    }
    return e;
  }
}
