package dev.baton.operator.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.api.v1alpha1.LeaderGroup;
import dev.baton.operator.demo.Sandbox;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The test's view of a {@link Sandbox}: waits, conditions, events, and failure descriptions. */
public final class BatonCluster extends Sandbox {

  public static final String ROLE = "baton.dev/role";

  public Optional<Condition> condition(String group, String type) {
    LeaderGroup g = get(group);
    if (g == null || g.getStatus() == null || g.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return g.getStatus().getConditions().stream().filter(c -> type.equals(c.getType()))
        .findFirst();
  }

  public List<Event> events(String involvedName) {
    return client.v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> involvedName.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  public List<String> eventReasons(String involvedName) {
    return events(involvedName).stream().map(Event::getReason).toList();
  }

  /** Waits until exactly one pod is labeled leader and the group's status names it. */
  public String awaitLeader(String group, String roleLabel) {
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
        .untilAsserted(() -> {
          List<String> leaders = leaders(roleLabel);
          LeaderGroup g = get(group);
          assertThat(leaders).as(describe(group, roleLabel)).hasSize(1);
          assertThat(g.getStatus()).as(describe(group, roleLabel)).isNotNull();
          assertThat(g.getStatus().getLeader()).as(describe(group, roleLabel))
              .isEqualTo(leaders.get(0));
        });
    return leaders(roleLabel).get(0);
  }

  /** The pods with their roles and terms, and the group's status, for failure messages. */
  public String describe(String group, String roleLabel) {
    StringBuilder sb = new StringBuilder("\npods:\n");
    for (Pod p : pods()) {
      var a = p.getMetadata().getAnnotations();
      sb.append("  ").append(p.getMetadata().getName())
          .append(" role=").append(p.getMetadata().getLabels() == null ? null
              : p.getMetadata().getLabels().get(roleLabel))
          .append(" term=").append(a == null ? null : a.get("baton.dev/term"))
          .append(" ready=").append(p.getStatus() == null ? null
              : p.getStatus().getConditions())
          .append('\n');
    }
    LeaderGroup g = get(group);
    sb.append("status:\n").append(g == null ? "(no group)" : Serialization.asYaml(g.getStatus()));
    return sb.toString();
  }
}
