package dev.baton.operator.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.Optional;
import org.assertj.core.api.AbstractStringAssert;

/**
 * Assertions on one status condition of a LeaderGroup or a RedisLock: its status, reason and
 * message. A condition that is not there yet fails as an assertion, so an await retries it.
 */
public final class ConditionAssert {

  private final Condition condition;
  private String description;

  ConditionAssert(Optional<Condition> condition, String subject) {
    assertThat(condition).as("%s", subject).isPresent();
    this.condition = condition.get();
    this.description = subject;
  }

  /** Adds this text to what the failures below say: the pods and the status, say. */
  public ConditionAssert as(String more) {
    description = description + ": " + more;
    return this;
  }

  public ConditionAssert hasStatus(String status) {
    assertThat(condition.getStatus()).as("%s, status", description).isEqualTo(status);
    return this;
  }

  public ConditionAssert hasReason(String reason) {
    assertThat(condition.getReason()).as("%s, reason", description).isEqualTo(reason);
    return this;
  }

  /** The message contains each of these. */
  public ConditionAssert hasMessageContaining(String... parts) {
    message().contains(parts);
    return this;
  }

  /** The message is exactly this. */
  public ConditionAssert hasMessage(String message) {
    message().isEqualTo(message);
    return this;
  }

  /** The message, for what the methods above do not say (doesNotContain, say). */
  public AbstractStringAssert<?> message() {
    return assertThat(condition.getMessage()).as("%s, message", description);
  }
}
