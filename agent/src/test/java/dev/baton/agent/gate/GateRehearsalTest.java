package dev.baton.agent.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.agent.threads.AgentThreads;
import org.junit.jupiter.api.Test;

class GateRehearsalTest {

  @Test
  void aConnectionGoesThroughBothKindsOfGateAndNothingIsLeftBehind() throws Exception {
    try (AgentThreads threads = new AgentThreads()) {
      assertThat(GateRehearsal.play(threads)).as("echoed through both gates").isTrue();

      Thread.sleep(200);
      assertThat(Thread.getAllStackTraces().keySet())
          .as("no gate loop or echo of the rehearsal's left running")
          .noneMatch(
              t ->
                  t.isAlive()
                      && (t.getName().startsWith("baton-agent-gate-0-")
                          || t.getName().startsWith("baton-agent-rehearsal")));
    }
  }
}
