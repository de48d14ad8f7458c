package dev.baton.operator.security;

import static dev.baton.operator.security.BadInputTable.JSON;
import static dev.baton.operator.security.BadInputTable.TTL_PATTERN;
import static dev.baton.operator.security.BadInputTable.UNKNOWN_OPERATOR;
import static dev.baton.operator.security.BadInputTable.assertOperatorSays;
import static dev.baton.operator.security.BadInputTable.assertSchemaSays;
import static dev.baton.operator.security.BadInputTable.expression;
import static dev.baton.operator.security.BadInputTable.row;
import static dev.baton.operator.security.BadInputTable.set;
import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.api.v1alpha1.RedisKeys;
import dev.baton.operator.leadergroup.GroupSettings;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.security.BadInputTable.Row;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of bad input to a LeaderGroup (a RedisLock's is {@link BadLockInputTest}), in one
 * table: the field, the bad value, what the API server's schema says about it (from the generated
 * CRD; null when the schema lets it through), and what the operator says (null when it never gets
 * that far, or accepts it). Schema keywords (type, required, pattern, length) are evaluated here
 * ({@link CrdSchemaCheck}), since the mock API server does not; CEL rules cannot be, so for them
 * the test checks that the rule with that message sits on the field or an object around it, and
 * that the operator refuses the value too, for API servers that skip CEL.
 */
class BadInputTest {

  private static final JSONSchemaProps SCHEMA =
      CrdSchemaCheck.schema("leadergroups.baton.dev-v1.yml");
  private static final String PASSWORD = "Url-Pw-f00d5";
  private static final String LABEL_KEY_PATTERN = "should match '^([a-z0-9]([-a-z0-9]*";
  private static final String KEY_PATTERN = "should match '" + RedisKeys.PATTERN + "'";
  private static final String SECRET_PATTERN =
      "should match '" + RedisConnectionRef.SecretRef.NAME_PATTERN + "'";
  private static final AtomicInteger SECRETS = new AtomicInteger();

  private static EmbeddedKubernetes kube;

  static Stream<Arguments> badInput() {
    String huge = "x".repeat(10_000);
    return Stream.of(
        row("spec.lease.ttl", "ten", TTL_PATTERN, "spec.lease.ttl: 'ten' is not a duration"),
        row("spec.lease.ttl", "-5s", TTL_PATTERN, "spec.lease.ttl: '-5s' is not a duration"),
        row("spec.lease.ttl", "", TTL_PATTERN, "spec.lease.ttl: '' is not a duration"),
        row(
            "spec.lease.ttl",
            "0s",
            "ttl must be between 1s and 1h",
            "spec.lease.ttl must be between 1s and 1h"),
        row(
            "spec.lease.ttl",
            "500ms",
            "ttl must be between 1s and 1h",
            "spec.lease.ttl must be between 1s and 1h"),
        row(
            "spec.lease.ttl",
            "2h",
            "ttl must be between 1s and 1h",
            "spec.lease.ttl must be between 1s and 1h"),
        row(
            "spec.lease.ttl",
            "9".repeat(40) + "h",
            "may not be longer than 32",
            "spec.lease.ttl must be between 1s and 1h"),
        row(
            "spec.lease.ttl",
            huge,
            "may not be longer than 32",
            "spec.lease.ttl: '" + "x".repeat(61) + "...' is not a duration"),
        row(
            "spec.lease.renewInterval",
            "3s",
            "renewInterval must be shorter than ttl",
            "spec.lease.renewInterval (3s) must be shorter than spec.lease.ttl (3s)"),
        row(
            "spec.lease.renewInterval",
            "0ms",
            "renewInterval must be at least 100ms",
            "spec.lease.renewInterval must be at least 100ms"),
        row(
            "spec.lease.renewInterval",
            "soon",
            TTL_PATTERN,
            "spec.lease.renewInterval: 'soon' is not a duration"),
        row(
            "spec.roleLabel",
            "not a label!",
            LABEL_KEY_PATTERN,
            "spec.roleLabel 'not a label!' is not a valid label key"),
        row("spec.roleLabel", "", LABEL_KEY_PATTERN, "spec.roleLabel '' is not a valid label key"),
        row(
            "spec.roleLabel",
            "a/b/c",
            LABEL_KEY_PATTERN,
            "spec.roleLabel 'a/b/c' is not a valid label key"),
        row("spec.roleLabel", huge, "may not be longer than 317", "is not a valid label key"),
        row("spec.roleLabel", "a".repeat(254) + "/role", null, "is not a valid label key"),
        row(
            "spec.roleLabel",
            "a".repeat(64) + ".example.com/role",
            null,
            "a part of its prefix is longer than 63 characters"),
        row(
            "spec.roleLabel",
            "app",
            "roleLabel must not be a label the selector matches on",
            "spec.roleLabel 'app' must not be a label the selector matches on"),
        row("spec.selector", null, "Required value", "spec.selector is required"),
        row(
            "spec.selector",
            Map.of(),
            "selector must not be empty",
            "spec.selector must not be empty: an empty selector selects every pod"),
        row(
            "spec.selector",
            Map.of("matchLabels", Map.of()),
            "selector must not be empty",
            "spec.selector must not be empty"),
        row(
            "spec.selector",
            expression("app", "Near"),
            UNKNOWN_OPERATOR.formatted("Near"),
            "unknown operator 'Near'"),
        row(
            "spec.selector",
            expression("app", "Likes", "payments"),
            UNKNOWN_OPERATOR.formatted("Likes"),
            "unknown operator 'Likes'"),
        row("spec.selector", expression("app", "In"), null, "operator In on 'app' needs values"),
        row(
            "spec.selector",
            expression("app", "Exists", "payments"),
            null,
            "operator Exists on 'app' takes no values"),
        row("spec.electionKey", "", "should be at least 1 chars long", null),
        row(
            "spec.electionKey",
            "shop/{payments}",
            KEY_PATTERN,
            "spec.electionKey may hold only letters, digits and - _ . : /"),
        row("spec.electionKey", "shop/pay ments", KEY_PATTERN, "no braces, spaces or wildcards"),
        row("spec.electionKey", "shop/*", KEY_PATTERN, "no braces, spaces or wildcards"),
        row(
            "spec.electionKey",
            "gate:shop/payments",
            RedisKeys.RESERVED_MESSAGE,
            "spec.electionKey 'gate:shop/payments' is reserved: a key holding ':' before its"
                + " first '/' is Baton's own"),
        row(
            "spec.electionKey",
            "baton-operator/default",
            RedisKeys.RESERVED_MESSAGE,
            "spec.electionKey 'baton-operator/default' is reserved: keys under baton-operator/"
                + " are the operator's own registration"),
        row(
            "spec.electionKey",
            huge,
            "may not be longer than 253",
            "spec.electionKey must be at most 253 characters"),
        row(
            "spec.redis",
            Map.of(),
            "Required value: spec.redis.secretRef",
            "spec.redis.secretRef.name is required"),
        row(
            "spec.redis.secretRef.name",
            "Payments_Redis",
            SECRET_PATTERN,
            "spec.redis.secretRef.name 'Payments_Redis' is not a valid Secret name"),
        row(
            "spec.redis.secretRef.name",
            "redis\n12:00:00 INFO forged line",
            SECRET_PATTERN,
            "spec.redis.secretRef.name 'redis\\u000a12:00:00 INFO forged line' is not a valid"
                + " Secret name"),
        row("spec.paused", "yes", "must be of type boolean", null),
        row(
            "spec.failoverDelay",
            "soon",
            TTL_PATTERN,
            "spec.failoverDelay: 'soon' is not a duration"),
        row(
            "spec.failoverDelay",
            "2h",
            "failoverDelay must be at most 1h",
            "spec.failoverDelay must be at most 1h"),
        row(
            "spec.service",
            Map.of("name", "Primary_DB", "ports", List.of(Map.of("port", 80))),
            "should match '^[a-z]([-a-z0-9]*[a-z0-9])?$'",
            "spec.service.name 'Primary_DB' is not a valid Service name"),
        row(
            "spec.service",
            Map.of("name", "primary", "ports", List.of()),
            "should have at least 1 items",
            "spec.service.ports must list at least one port"),
        row(
            "spec.service",
            Map.of("name", "primary", "ports", List.of(Map.of("port", 70000))),
            "should be less than or equal to 65535",
            "every port needs a port 1-65535"),
        row(
            "spec.service",
            Map.of("name", "primary", "ports", List.of(Map.of("port", 80), Map.of("port", 81))),
            null,
            "every port needs a name when there are several"),
        row("spec.protectLeader", 1, "must be of type boolean", null),
        row("Secret", Map.of("password", PASSWORD), null, "has no key 'url'"),
        row(
            "Secret",
            Map.of("url", "http://redis:6379"),
            null,
            "must start with redis://, rediss://, redis-sentinel://, redis-cluster:// or"
                + " rediss-cluster://"),
        row(
            "Secret",
            Map.of("url", "redis-cluster://"),
            null,
            "must name at least one node: redis-cluster://host:port,host:port"),
        row(
            "Secret",
            Map.of("url", "redis-cluster://node-0:6379,node-1"),
            null,
            "every node needs a host and a port, as in redis-cluster://host:port,host:port"),
        row(
            "Secret",
            Map.of("url", "redis-cluster://node-0:6379", "sentinelPassword", PASSWORD),
            null,
            "sentinel credentials are only used with a redis-sentinel:// URL"),
        row(
            "Secret",
            Map.of("url", "redis-sentinel://s1:26379,s2:26379"),
            null,
            "must name the master: redis-sentinel://host:port,host:port/master-name"),
        row(
            "Secret",
            Map.of("url", "redis://:" + PASSWORD + "@redis"),
            null,
            "'redis://redis' must have a host and a port"),
        row(
            "Secret",
            Map.of("url", "rediss://redis:6379", "ca.crt", "not a certificate"),
            null,
            "the CA certificate is not in PEM format"),
        row(
            "Secret",
            Map.of("url", "redis://redis:6379", "ca.crt", "not a certificate"),
            null,
            "a CA certificate is only used with a rediss:// or rediss-cluster:// URL"),
        row(
            "Secret",
            Map.of("url", "redis://redis:6379", "sentinelPassword", PASSWORD),
            null,
            "sentinel credentials are only used with a redis-sentinel:// URL"));
  }

  @BeforeAll
  static void startApi() {
    kube = EmbeddedKubernetes.start();
  }

  @AfterAll
  static void stopApi() {
    kube.close();
  }

  @Test
  void theTableStartsFromAValidGroup() {
    ObjectNode group = JSON.valueToTree(Sandbox.group("payments", "payments"));
    assertThat(schemaRefusals(group.get("spec"))).isEmpty();
    GroupSettings.of(Sandbox.group("payments", "payments"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInput")
  void badInputIsRefusedByTheSchemaOrTheOperatorWithAClearMessage(Row row) {
    assertThat(row.schemaSays() != null || row.operatorSays() != null)
        .as("a row must say where the value is refused")
        .isTrue();
    if (row.field().equals("Secret")) {
      checkSecret(row);
      return;
    }
    ObjectNode group = JSON.valueToTree(Sandbox.group("payments", "payments"));
    set(group, row.field(), row.value());

    assertSchemaSays(SCHEMA, group.get("spec"), row);

    LeaderGroup parsed;
    try {
      parsed = JSON.treeToValue(group, LeaderGroup.class);
    } catch (Exception notRepresentable) {
      assertThat(row.operatorSays()).as("%s cannot even reach the operator", row).isNull();
      return;
    }
    if (row.operatorSays() == null) {
      GroupSettings.of(parsed);
    } else {
      assertOperatorSays(() -> GroupSettings.of(parsed), row);
    }
  }

  private static void checkSecret(Row row) {
    KubernetesClient client = kube.client();
    String name = "redis-" + SECRETS.incrementAndGet();
    @SuppressWarnings("unchecked")
    Map<String, String> data = (Map<String, String>) row.value();
    client.secrets().resource(BatonCluster.redisSecret(name, data)).create();
    Throwable thrown = catchThrowable(() -> new RedisSecrets(client, null).settings(NS, name));
    assertThat(thrown)
        .isInstanceOf(RedisSecrets.SecretProblem.class)
        .hasMessageStartingWith("Secret " + NS + "/" + name)
        .hasMessageContaining(row.operatorSays())
        .hasMessageNotContaining(PASSWORD);
    assertThat(((RedisSecrets.SecretProblem) thrown).reason()).isEqualTo("InvalidSecret");
  }

  private static List<String> schemaRefusals(JsonNode spec) {
    return CrdSchemaCheck.schemaRefusals(SCHEMA, spec);
  }
}
