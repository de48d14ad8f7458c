package dev.baton.operator.pods;

import dev.baton.client.BatonNames;
import dev.baton.client.PodReadiness;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A pod that runs for leader, reduced to what the election needs.
 *
 * @param eligible ready, running and not terminating: the only pods that may lead
 * @param notEligibleBecause when not eligible, which of those it is not
 * @param labeledLeader carries the role label with value leader right now
 */
public record Candidate(
    String name,
    String uid,
    boolean eligible,
    Ineligibility notEligibleBecause,
    Instant created,
    int priority,
    boolean labeledLeader) {

  /** Why a pod may not lead. */
  public enum Ineligibility {
    NONE,
    NOT_READY,
    TERMINATING,
    /** Its node is NotReady or Unknown: the pod's own Ready condition may not have caught up. */
    NODE_LOST,
    /** Annotated baton.dev/candidate: "false": drained from leadership without being deleted. */
    OPTED_OUT,
    /**
     * Labeled baton.dev/agent but runs without the agent (created while no webhook answered): its
     * gate port serves nothing, so it must never be the one the leader's traffic goes to.
     */
    AGENT_MISSING
  }

  /**
   * The preference order after switchover and stickiness (docs/design.md, "Choice of the new
   * leader").
   */
  public static final Comparator<Candidate> PREFERENCE =
      Comparator.comparingInt((Candidate c) -> -c.priority())
          .thenComparing(Candidate::created)
          .thenComparing(Candidate::name);

  /**
   * A pod that may hold a lock: its node's readiness is not known (no node informer), and the
   * candidate annotation, which is about elections, does not apply.
   */
  public static Candidate of(Pod pod, String roleLabel) {
    return of(pod, roleLabel, node -> false, false);
  }

  /**
   * A LeaderGroup's candidate.
   *
   * @param nodeLost tells whether a node is known and NotReady or Unknown
   */
  public static Candidate of(Pod pod, String roleLabel, Predicate<String> nodeLost) {
    return of(pod, roleLabel, nodeLost, true);
  }

  private static Candidate of(
      Pod pod, String roleLabel, Predicate<String> nodeLost, boolean honorOptOut) {
    Ineligibility why = Ineligibility.NONE;
    String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      why = Ineligibility.TERMINATING;
    } else if (honorOptOut
        && annotations != null
        && "false"
            .equalsIgnoreCase(
                String.valueOf(annotations.get(BatonNames.CANDIDATE_ANNOTATION)).trim())) {
      why = Ineligibility.OPTED_OUT;
    } else if (honorOptOut && lacksAgent(pod)) {
      why = Ineligibility.AGENT_MISSING;
    } else if (node != null && nodeLost.test(node)) {
      why = Ineligibility.NODE_LOST;
    } else if (!isReady(pod)) {
      why = Ineligibility.NOT_READY;
    }
    Map<String, String> labels = pod.getMetadata().getLabels();
    return new Candidate(
        pod.getMetadata().getName(),
        pod.getMetadata().getUid(),
        why == Ineligibility.NONE,
        why,
        created(pod),
        priority(pod),
        labels != null && BatonNames.LEADER.equals(labels.get(roleLabel)));
  }

  /** Asks for the agent (its label) and has no container of that name. */
  public static boolean lacksAgent(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    if (labels == null || !labels.containsKey(PodSkeleton.AGENT_LABEL) || pod.getSpec() == null) {
      return false;
    }
    return agentImage(pod) == null;
  }

  /** The image of the pod's agent container (a native sidecar or a plain one), or null. */
  public static String agentImage(Pod pod) {
    if (pod.getSpec() == null) {
      return null;
    }
    for (var list :
        Arrays.asList(pod.getSpec().getInitContainers(), pod.getSpec().getContainers())) {
      if (list == null) {
        continue;
      }
      for (Container c : list) {
        if (PodSkeleton.AGENT_CONTAINER.equals(c.getName())) {
          return c.getImage() == null ? "" : c.getImage();
        }
      }
    }
    return null;
  }

  /** As the pod's agent counts it too: {@link PodReadiness}. */
  private static boolean isReady(Pod pod) {
    PodStatus status = pod.getStatus();
    return status != null
        && PodReadiness.isReady(
            status.getPhase(),
            status.getConditions(),
            PodCondition::getType,
            PodCondition::getStatus);
  }

  private static Instant created(Pod pod) {
    String ts = pod.getMetadata().getCreationTimestamp();
    try {
      return ts == null ? Instant.MAX : Instant.parse(ts);
    } catch (RuntimeException e) {
      return Instant.MAX;
    }
  }

  private static int priority(Pod pod) {
    var annotations = pod.getMetadata().getAnnotations();
    String p = annotations == null ? null : annotations.get(BatonNames.PRIORITY_ANNOTATION);
    if (p == null) {
      return 0;
    }
    try {
      return Integer.parseInt(p.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
