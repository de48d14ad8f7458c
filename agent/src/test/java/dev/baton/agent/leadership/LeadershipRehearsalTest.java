package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LeadershipRehearsalTest {

  @Test
  void aRehearsalWalksTheWholeFailoverPathOnAScratchState() {
    List<Effect> effects = LeadershipRehearsal.once(DecisionDriver.CONFIG);

    // The path a promotion takes in earnest: the key taken, the gates opened, the hold renewed,
    // then the gates closed before the hold is let go.
    assertThat(effects).anyMatch(e -> e instanceof HoldCall.Take);
    assertThat(effects).anyMatch(e -> e instanceof Effect.Open o && o.opens());
    assertThat(effects).anyMatch(e -> e instanceof HoldCall.Renew);
    int closed = indexOf(effects, Effect.Close.class);
    int letGo = indexOf(effects, HoldCall.LetGo.class);
    assertThat(closed).isNotNegative();
    assertThat(letGo).isGreaterThan(closed);
  }

  private static int indexOf(List<Effect> effects, Class<?> kind) {
    for (int i = 0; i < effects.size(); i++) {
      if (kind.isInstance(effects.get(i))) {
        return i;
      }
    }
    return -1;
  }
}
