package dev.baton.kubectl;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.BatonNames;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * {@code kubectl baton status}: the three views of each group side by side (the holder and term the
 * operator recorded from Redis, the pods and their role labels, the endpoints of the Services that
 * route to the leader), its conditions, its last leadership changes, and the locks. Text is printed
 * group by group as each is read, so the first lines come before the last group is fetched.
 */
final class StatusReport {

  /** The Event reasons that mean leadership changed hands (or was refused a change). */
  static final Set<String> LEADERSHIP_CHANGES =
      Set.of(
          "Initial",
          "LeaderDeleted",
          "LeaderNotReady",
          "LeaderTerminating",
          "LeaderNodeLost",
          "LeaderOptedOut",
          "LeaseExpired",
          "Switchover",
          "SwitchoverRefused",
          "NoCandidates",
          "FailoverPending",
          "FailoverAverted");

  private static final int FAILOVERS_SHOWN = 5;

  private final KubernetesClient client;
  private final PrintStream out;
  private final Map<String, List<Event>> events = new HashMap<>();

  StatusReport(KubernetesClient client, PrintStream out) {
    this.client = client;
    this.out = out;
  }

  /**
   * Reports one group, or every group of a namespace (null: of every namespace) and the locks.
   * Returns the exit code: 1 when the named group does not exist.
   */
  int print(String namespace, String groupName, Commands.Format format) {
    List<LeaderGroup> groups;
    if (groupName != null) {
      LeaderGroup g =
          client.resources(LeaderGroup.class).inNamespace(namespace).withName(groupName).get();
      if (g == null) {
        String missing = "No LeaderGroup " + groupName + " in namespace " + namespace + ".";
        if (format != null) {
          throw new Refused(missing);
        }
        out.println(missing);
        return 1;
      }
      groups = List.of(g);
    } else {
      groups =
          (namespace == null
                  ? client.resources(LeaderGroup.class).inAnyNamespace().list()
                  : client.resources(LeaderGroup.class).inNamespace(namespace).list())
              .getItems().stream()
                  .sorted(
                      Comparator.comparing((LeaderGroup g) -> g.getMetadata().getNamespace())
                          .thenComparing(g -> g.getMetadata().getName()))
                  .toList();
      if (groups.isEmpty() && format == null) {
        out.println(
            namespace == null
                ? "No LeaderGroups in any namespace."
                : "No LeaderGroups in namespace " + namespace + ".");
      }
    }
    List<StatusView.Group> views = new ArrayList<>();
    for (LeaderGroup g : groups) {
      StatusView.Group view = view(g);
      if (format == null) {
        StatusText.group(out, view);
        out.println();
      } else {
        views.add(view);
      }
    }
    List<StatusView.Lock> locks = groupName == null ? locks(namespace) : null;
    if (format == null) {
      if (locks != null) {
        StatusText.locks(out, namespace, locks);
      }
    } else {
      Printing.print(out, format, new StatusView.Document("BatonStatus", views, locks));
    }
    return 0;
  }

  private StatusView.Group view(LeaderGroup g) {
    String ns = g.getMetadata().getNamespace();
    LeaderGroupSpec spec = g.getSpec();
    LeaderGroupStatus status = g.getStatus() == null ? new LeaderGroupStatus() : g.getStatus();
    String roleLabel =
        spec.getRoleLabel() == null ? LeaderGroupSpec.DEFAULT_ROLE_LABEL : spec.getRoleLabel();
    StatusView.Holder holder =
        status.getLeader() == null || status.getLeader().isEmpty()
            ? null
            : new StatusView.Holder(status.getLeader(), status.getTerm(), status.getLeaderSince());
    List<StatusView.Pod> pods = new ArrayList<>();
    for (Pod p : candidates(ns, spec)) {
      Map<String, String> labels = p.getMetadata().getLabels();
      Map<String, String> annotations = p.getMetadata().getAnnotations();
      pods.add(
          new StatusView.Pod(
              p.getMetadata().getName(),
              labels == null ? null : labels.get(roleLabel),
              ready(p),
              p.getMetadata().getDeletionTimestamp() != null,
              annotations == null ? null : annotations.get(BatonNames.TERM_ANNOTATION),
              p.getSpec() == null ? null : p.getSpec().getNodeName(),
              agent(p, status.getAgentImage())));
    }
    List<StatusView.Change> changes =
        events(ns).stream()
            .filter(e -> e.getInvolvedObject() != null)
            .filter(e -> "LeaderGroup".equals(e.getInvolvedObject().getKind()))
            .filter(e -> g.getMetadata().getName().equals(e.getInvolvedObject().getName()))
            .filter(e -> LEADERSHIP_CHANGES.contains(e.getReason()))
            .sorted(Comparator.comparing(StatusReport::when))
            .map(e -> new StatusView.Change(when(e), e.getReason(), e.getMessage()))
            .toList();
    return new StatusView.Group(
        ns,
        g.getMetadata().getName(),
        Boolean.TRUE.equals(spec.getPaused()),
        roleLabel,
        status.getAgentImage(),
        holder,
        status.getPendingFailover(),
        status.getConditions() == null ? List.of() : status.getConditions(),
        pods,
        status.getRouting() == null ? List.of() : status.getRouting(),
        changes.subList(Math.max(0, changes.size() - FAILOVERS_SHOWN), changes.size()));
  }

  /** The agent of a pod that asks for one (its label), against the operator's image; else null. */
  static StatusView.Agent agent(Pod p, String operatorImage) {
    Map<String, String> labels = p.getMetadata().getLabels();
    String mode = labels == null ? null : labels.get(BatonNames.AGENT_LABEL);
    if (mode == null) {
      return null;
    }
    String image =
        BatonPods.agents(p).stream()
            .filter(c -> BatonNames.AGENT_CONTAINER.equals(c.getName()))
            .map(c -> c.getImage() == null ? "" : c.getImage())
            .findFirst()
            .orElse(null);
    String state;
    if (image == null) {
      state = StatusView.Agent.MISSING;
    } else if (operatorImage == null) {
      state = StatusView.Agent.INJECTED;
    } else {
      state = operatorImage.equals(image) ? StatusView.Agent.CURRENT : StatusView.Agent.OUTDATED;
    }
    return new StatusView.Agent(mode, state, image);
  }

  private List<Event> events(String namespace) {
    return events.computeIfAbsent(
        namespace, ns -> client.v1().events().inNamespace(ns).list().getItems());
  }

  private List<StatusView.Lock> locks(String namespace) {
    List<RedisLock> locks =
        (namespace == null
                ? client.resources(RedisLock.class).inAnyNamespace().list()
                : client.resources(RedisLock.class).inNamespace(namespace).list())
            .getItems();
    return locks.stream()
        .sorted(
            Comparator.comparing((RedisLock l) -> l.getMetadata().getNamespace())
                .thenComparing(l -> l.getMetadata().getName()))
        .map(
            l -> {
              RedisLockStatus s = l.getStatus() == null ? new RedisLockStatus() : l.getStatus();
              return new StatusView.Lock(
                  l.getMetadata().getNamespace(),
                  l.getMetadata().getName(),
                  s.getHolder(),
                  s.getFencingToken(),
                  s.getExpiresAt(),
                  condition(s.getConditions(), ConditionType.Ready));
            })
        .toList();
  }

  private List<Pod> candidates(String namespace, LeaderGroupSpec spec) {
    if (spec.getSelector() == null) {
      return List.of();
    }
    return client
        .pods()
        .inNamespace(namespace)
        .withLabelSelector(spec.getSelector())
        .list()
        .getItems()
        .stream()
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .toList();
  }

  private static String condition(List<Condition> conditions, ConditionType type) {
    return conditions == null
        ? null
        : conditions.stream()
            .filter(c -> type.name().equals(c.getType()))
            .map(Condition::getStatus)
            .findFirst()
            .orElse(null);
  }

  private static boolean ready(Pod p) {
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** An Event's last time, whichever of the fields its writer filled in. */
  static String when(Event e) {
    return Objects.requireNonNullElse(
        e.getLastTimestamp(),
        Objects.requireNonNullElse(
            e.getEventTime() == null ? null : e.getEventTime().getTime(),
            Objects.requireNonNullElse(e.getFirstTimestamp(), "")));
  }
}
