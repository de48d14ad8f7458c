package dev.baton.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Event;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventRecorderTest {

  @Test
  void aRepeatedEventBumpsItsCountInsteadOfAddingAnother() {
    try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
      var group = kube.client().resource(Sandbox.group("payments", "payments")).create();
      EventRecorder events = new EventRecorder(kube.client(), java.time.Clock.systemUTC());
      events.record(group, EventReason.NoCandidates, "no ready candidate pod");
      events.record(group, EventReason.NoCandidates, "no ready candidate pod");
      events.record(group, EventReason.Initial, "payments-0 leads with term 1");

      List<Event> all = kube.client().v1().events().inNamespace("shop").list().getItems();
      assertThat(all).hasSize(2);
      Event repeated =
          all.stream().filter(e -> e.getReason().equals("NoCandidates")).findFirst().orElseThrow();
      assertThat(repeated.getCount()).isEqualTo(2);
      assertThat(repeated.getType()).isEqualTo("Warning");
      assertThat(repeated.getInvolvedObject().getName()).isEqualTo("payments");
    }
  }
}
