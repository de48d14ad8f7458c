package dev.baton.kubectl;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.api.v1alpha1.RouteStatus;
import io.fabric8.kubernetes.api.model.Condition;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** {@code kubectl baton status} as text for a person: a block per group, then the locks. */
final class StatusText {

  /** A group's conditions on its summary line, in this order. */
  private static final List<ConditionType> SUMMARY =
      List.of(
          ConditionType.Ready,
          ConditionType.Routed,
          ConditionType.RedisAvailable,
          ConditionType.Paused,
          ConditionType.SplitBrainSuspected,
          ConditionType.AgentInjected);

  /** The conditions whose True is a problem, printed with their message. */
  private static final Set<String> PROBLEMS_WHEN_TRUE =
      Set.of(
          ConditionType.SplitBrainSuspected.name(),
          ConditionType.Conflict.name(),
          ConditionType.Invalid.name());

  /** The conditions whose False is a problem, printed with their message. */
  private static final Set<String> NEEDED_TRUE =
      Set.of(ConditionType.Ready.name(), ConditionType.AgentInjected.name());

  private StatusText() {}

  static void group(PrintStream out, StatusView.Group g) {
    out.println("LeaderGroup " + g.namespace() + "/" + g.name() + (g.paused() ? "   PAUSED" : ""));
    out.println("  " + conditionLine(g.conditions()));
    StatusView.Holder h = g.holder();
    out.println(
        "  Redis holder (as last recorded): "
            + (h == null
                ? "none"
                : h.pod()
                    + ", term "
                    + h.term()
                    + (h.since() == null ? "" : ", since " + h.since())));
    if (g.pendingFailover() != null) {
      out.println(
          "  Failover pending: "
              + g.pendingFailover().getPod()
              + " is not ready; it moves at "
              + g.pendingFailover().getFailoverAt()
              + " unless it recovers");
    }
    for (Condition c : g.conditions()) {
      if (!"True".equals(c.getStatus()) && NEEDED_TRUE.contains(c.getType())
          || "True".equals(c.getStatus()) && PROBLEMS_WHEN_TRUE.contains(c.getType())) {
        out.println("  " + c.getType() + ": " + c.getMessage());
      }
    }

    views(out, g);
  }

  /** The pods, the Services routing to the leader, the last leadership changes. */
  private static void views(PrintStream out, StatusView.Group g) {
    pods(out, g);

    out.println("  Services routing to the leader:");
    if (g.routing().isEmpty()) {
      out.println("    none");
    } else {
      Table services = new Table("SERVICE", "READY ENDPOINTS", "ROUTED", "MESSAGE");
      for (RouteStatus r : g.routing()) {
        services.row(
            r.getService(),
            String.join(",", r.getEndpoints()),
            Boolean.TRUE.equals(r.getRouted()) ? "yes" : "no",
            r.getMessage());
      }
      services.print(out, "    ");
    }

    out.println("  Last leadership changes:");
    if (g.lastChanges().isEmpty()) {
      out.println("    none recorded");
    } else {
      Table t = new Table("TIME", "REASON", "MESSAGE");
      g.lastChanges().forEach(c -> t.row(c.time(), c.reason(), c.message()));
      t.print(out, "    ");
    }
  }

  /**
   * The pods, with an AGENT column when some ask for the agent, and the pods to create again to run
   * the operator's agent (missing: created while no webhook answered; outdated: an earlier image).
   */
  private static void pods(PrintStream out, StatusView.Group g) {
    out.println("  Pods (" + g.roleLabel() + "):");
    boolean agents = g.pods().stream().anyMatch(p -> p.agent() != null);
    Table pods =
        agents
            ? new Table("POD", "ROLE", "READY", "TERM", "NODE", "AGENT")
            : new Table("POD", "ROLE", "READY", "TERM", "NODE");
    for (StatusView.Pod p : g.pods()) {
      String ready = (p.ready() ? "True" : "False") + (p.terminating() ? " (terminating)" : "");
      if (agents) {
        pods.row(p.name(), p.role(), ready, p.term(), p.node(), agent(p.agent()));
      } else {
        pods.row(p.name(), p.role(), ready, p.term(), p.node());
      }
    }
    if (pods.isEmpty()) {
      out.println("    none selected");
      return;
    }
    pods.print(out, "    ");
    List<String> roll =
        g.pods().stream()
            .filter(p -> p.agent() != null && p.agent().needsRoll())
            .map(StatusView.Pod::name)
            .toList();
    if (!roll.isEmpty()) {
      out.println(
          "    Not running this operator's agent"
              + (g.agentImage() == null ? "" : " (" + g.agentImage() + ")")
              + ": "
              + String.join(", ", roll)
              + ". Roll them (kubectl rollout restart) or delete them to have them created with"
              + " it.");
    }
  }

  private static String agent(StatusView.Agent a) {
    if (a == null) {
      return "";
    }
    return a.mode()
        + ", "
        + a.state()
        + (StatusView.Agent.OUTDATED.equals(a.state()) ? " (" + a.image() + ")" : "");
  }

  /** The locks of one namespace, or (namespace null) of all, with a NAMESPACE column. */
  static void locks(PrintStream out, String namespace, List<StatusView.Lock> locks) {
    out.println("RedisLocks in " + (namespace == null ? "all namespaces" : namespace) + ":");
    if (locks.isEmpty()) {
      out.println("  none");
      return;
    }
    Table t =
        namespace == null
            ? new Table("NAMESPACE", "LOCK", "HOLDER", "TOKEN", "EXPIRES", "READY")
            : new Table("LOCK", "HOLDER", "TOKEN", "EXPIRES", "READY");
    for (StatusView.Lock l : locks) {
      if (namespace == null) {
        t.row(l.namespace(), l.name(), l.holder(), l.token(), l.expiresAt(), l.ready());
      } else {
        t.row(l.name(), l.holder(), l.token(), l.expiresAt(), l.ready());
      }
    }
    t.print(out, "  ");
  }

  private static String conditionLine(List<Condition> conditions) {
    StringBuilder line = new StringBuilder();
    for (ConditionType type : SUMMARY) {
      condition(conditions, type)
          .ifPresent(
              c ->
                  line.append(line.length() == 0 ? "" : "  ")
                      .append(type)
                      .append('=')
                      .append(c.getStatus())
                      .append(
                          c.getReason() == null || c.getReason().isEmpty()
                              ? ""
                              : " (" + c.getReason() + ")"));
    }
    return line.length() == 0 ? "no conditions yet" : line.toString();
  }

  private static Optional<Condition> condition(List<Condition> conditions, ConditionType type) {
    return conditions.stream().filter(c -> type.name().equals(c.getType())).findFirst();
  }
}
