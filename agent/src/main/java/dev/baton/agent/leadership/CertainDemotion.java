package dev.baton.agent.leadership;

import dev.baton.client.BatonNames;
import dev.baton.client.GoDuration;
import dev.baton.client.PodFacts;

/**
 * Whether the operator is certain to demote this pod, so that the agent may shut its gates and let
 * its hold go before the demotion reaches its watch (docs/design.md, "Not ready: the agent
 * anticipates a certain demotion"). A terminating pod (its deletion timestamp set) is never a
 * candidate again. A pod that is not ready is demoted at once only under a failover delay of zero:
 * the operator writes the annotation on the leader with the role label and the term (the group's
 * {@code spec.failoverDelay}, or {@code paused}); anything else, an absent annotation or a value
 * this agent does not know, leaves the decision to the operator.
 */
public final class CertainDemotion {

  private CertainDemotion() {}

  /**
   * Whether the gates stay cut once {@code facts} were seen, {@code cut} telling whether they were
   * cut before. A cut ends only when the pod is seen labeled leader and no longer certain to be
   * demoted (ready again, or its group paused meanwhile): the demotion itself shows the pod neither
   * ready nor annotated, and must not reopen anything in the moment before it revokes leadership.
   */
  public static boolean after(boolean cut, PodFacts facts, String roleLabel) {
    if (applies(facts)) {
      return true;
    }
    return cut && !BatonNames.LEADER.equals(facts == null ? null : facts.labels().get(roleLabel));
  }

  /** True when {@code facts} show the pod terminating, or not ready under a delay of zero. */
  public static boolean applies(PodFacts facts) {
    if (facts == null || !facts.exists()) {
      return false;
    }
    if (facts.terminating()) {
      return true;
    }
    if (facts.ready()) {
      return false;
    }
    String delay = facts.annotations().get(BatonNames.FAILOVER_DELAY_ANNOTATION);
    if (delay == null) {
      return false;
    }
    try {
      return GoDuration.parse(delay).isZero();
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
