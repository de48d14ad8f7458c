package dev.baton.operator.injection;

import dev.baton.client.settings.PortNumber;
import dev.baton.operator.pods.Candidate;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A group's pods that ask for the agent (its label), as the observe step found them: those that run
 * without it (created while no webhook answered), those whose agent is not this operator's image
 * (created before an upgrade), and what the agents' permissions and policy are made of.
 *
 * @param missing names of pods that ask for the agent and have none
 * @param outdated pod name to the agent image it runs, for agents not of {@code expectedImage}
 * @param serviceAccounts the accounts those pods run as: the subjects of the agents' RoleBinding
 * @param leaderOnlyPorts relay mode's leader-only ports among them; empty without relay pods
 */
public record AgentPods(
    List<String> optedIn,
    List<String> missing,
    Map<String, String> outdated,
    SortedSet<String> serviceAccounts,
    SortedSet<Integer> leaderOnlyPorts) {

  public static final AgentPods NONE =
      new AgentPods(List.of(), List.of(), Map.of(), new TreeSet<>(), new TreeSet<>());

  /**
   * @param expectedImage the operator's agent image; null: no image is called outdated
   */
  public static AgentPods of(List<Pod> members, String expectedImage) {
    List<String> optedIn = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    Map<String, String> outdated = new TreeMap<>();
    SortedSet<String> accounts = new TreeSet<>();
    SortedSet<Integer> leaderOnly = new TreeSet<>();
    for (Pod pod : members) {
      Map<String, String> labels = pod.getMetadata().getLabels();
      String mode = labels == null ? null : labels.get(AgentNames.LABEL);
      if (mode == null) {
        continue;
      }
      String name = pod.getMetadata().getName();
      optedIn.add(name);
      String image = Candidate.agentImage(pod);
      if (image == null) {
        missing.add(name);
      } else if (expectedImage != null && !expectedImage.equals(image)) {
        outdated.put(name, image);
      }
      String account = pod.getSpec() == null ? null : pod.getSpec().getServiceAccountName();
      accounts.add(account == null || account.isBlank() ? "default" : account);
      if (AgentNames.RELAY.equals(mode)) {
        leaderOnly.add(leaderOnlyPort(pod.getMetadata().getAnnotations()));
      }
    }
    Collections.sort(optedIn);
    Collections.sort(missing);
    return new AgentPods(optedIn, missing, outdated, accounts, leaderOnly);
  }

  private static int leaderOnlyPort(Map<String, String> annotations) {
    String value = annotations == null ? null : annotations.get(AgentNames.LEADER_ONLY_PORT);
    return PortNumber.parse(value).orElse(AgentNames.DEFAULT_LEADER_ONLY_PORT);
  }

  public boolean any() {
    return !optedIn.isEmpty();
  }

  public boolean relay() {
    return !leaderOnlyPorts.isEmpty();
  }
}
