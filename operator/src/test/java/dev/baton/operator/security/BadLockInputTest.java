package dev.baton.operator.security;

import static dev.baton.operator.security.BadInputTable.JSON;
import static dev.baton.operator.security.BadInputTable.TTL_PATTERN;
import static dev.baton.operator.security.BadInputTable.UNKNOWN_OPERATOR;
import static dev.baton.operator.security.BadInputTable.assertOperatorSays;
import static dev.baton.operator.security.BadInputTable.assertSchemaSays;
import static dev.baton.operator.security.BadInputTable.expression;
import static dev.baton.operator.security.BadInputTable.row;
import static dev.baton.operator.security.BadInputTable.set;
import static dev.baton.operator.security.CrdSchemaCheck.schemaRefusals;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.api.v1alpha1.RedisKeys;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.operator.redislock.LockSettings;
import dev.baton.operator.security.BadInputTable.Row;
import dev.baton.operator.testing.BatonCluster;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of bad input to a RedisLock's spec, in one table, read as {@link BadInputTest} reads
 * the LeaderGroup's: what the API server's schema says (a CEL rule's message where the structural
 * keywords let the value through) and what the operator says; here the operator refuses every row.
 */
class BadLockInputTest {

  private static final JSONSchemaProps LOCK_SCHEMA =
      CrdSchemaCheck.schema("redislocks.baton.dev-v1.yml");

  /** The field, the bad value, what the schema says about it and what the operator says. */
  static Stream<Arguments> badLockInput() {
    return Stream.of(
        row(
            "spec.holderSelector",
            Map.of(),
            "holderSelector must not be empty",
            "spec.holderSelector must not be empty: an empty selector selects every pod in the"
                + " namespace"),
        row(
            "spec.holderSelector",
            Map.of("matchLabels", Map.of()),
            "holderSelector must not be empty",
            "spec.holderSelector must not be empty"),
        row(
            "spec.holderSelector",
            expression("job", "Likes", "migrate"),
            UNKNOWN_OPERATOR.formatted("Likes"),
            "spec.holderSelector: unknown operator 'Likes'"),
        row(
            "spec.holderSelector",
            expression("job", "In"),
            null,
            "operator In on 'job' needs values"),
        row("spec.ttl", "soon", TTL_PATTERN, "spec.ttl: 'soon' is not a duration"),
        row(
            "spec.key",
            "shop/{migration}",
            "should match '" + RedisKeys.PATTERN + "'",
            "spec.key may hold only letters, digits and - _ . : /"),
        row(
            "spec.key",
            "gate:shop/migration",
            RedisKeys.RESERVED_MESSAGE,
            "spec.key 'gate:shop/migration' is reserved"),
        row(
            "spec.redis.secretRef.name",
            "lock-redis\r\nforged",
            "should match '" + RedisConnectionRef.SecretRef.NAME_PATTERN + "'",
            "spec.redis.secretRef.name 'lock-redis\\u000d\\u000aforged' is not a valid Secret"
                + " name"));
  }

  @Test
  void theLockTableStartsFromAValidLock() {
    ObjectNode lock = JSON.valueToTree(grantedLock());
    assertThat(schemaRefusals(LOCK_SCHEMA, lock.get("spec"))).isEmpty();
    LockSettings.of(grantedLock());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badLockInput")
  void badLockInputIsRefusedByTheSchemaOrTheOperatorWithAClearMessage(Row row) throws Exception {
    ObjectNode lock = JSON.valueToTree(grantedLock());
    set(lock, row.field(), row.value());
    assertSchemaSays(LOCK_SCHEMA, lock.get("spec"), row);
    RedisLock parsed = JSON.treeToValue(lock, RedisLock.class);
    assertOperatorSays(() -> LockSettings.of(parsed), row);
  }

  private static RedisLock grantedLock() {
    return BatonCluster.grantedLock("migration", "30s", "migrate");
  }
}
