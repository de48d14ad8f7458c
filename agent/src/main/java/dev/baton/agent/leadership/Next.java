package dev.baton.agent.leadership;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** A value's next version and the effects that go with it, in order. */
record Next<T>(T value, List<Effect> effects) {

  Next {
    effects = List.copyOf(effects);
  }

  static <T> Next<T> of(T value, Effect... effects) {
    return new Next<>(value, List.of(effects));
  }

  /** Goes on from this value; the effects of both, this one's first. */
  Next<T> then(Function<T, Next<T>> f) {
    Next<T> n = f.apply(value);
    if (effects.isEmpty()) {
      return n;
    }
    List<Effect> all = new ArrayList<>(effects);
    all.addAll(n.effects);
    return new Next<>(n.value, all);
  }
}
