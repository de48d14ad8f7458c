package dev.baton.operator.security;

import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.operator.leadergroup.GroupSettings;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.redislock.LockSettings;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * Every kind of bad input to a LeaderGroup (and, in a second table, to a RedisLock), in one table:
 * the field, the bad value, what the API server's schema says about it (from the generated CRD;
 * null when the schema lets it through), and what the operator says (null when it never gets that
 * far, or accepts it). Schema keywords (type, required, pattern, length) are evaluated here, since
 * the mock API server does not; CEL rules cannot be, so for them the test checks that the rule with
 * that message sits on the field or an object around it, and that the operator refuses the value
 * too, for API servers that skip CEL.
 */
class BadInputTest {

  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final JSONSchemaProps SCHEMA = schema("leadergroups.baton.dev-v1.yml");
  private static final JSONSchemaProps LOCK_SCHEMA = schema("redislocks.baton.dev-v1.yml");
  private static final String UNKNOWN_OPERATOR =
      "Unsupported value: \"%s\": supported values:"
          + " \"DoesNotExist\", \"Exists\", \"In\", \"NotIn\"";
  private static final String PASSWORD = "Url-Pw-f00d5";
  private static final String TTL_PATTERN = "should match '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$'";
  private static final String LABEL_KEY_PATTERN = "should match '^([a-z0-9]([-a-z0-9]*";
  private static final AtomicInteger SECRETS = new AtomicInteger();

  private static EmbeddedKubernetes kube;

  /** One row: where {@code field} starts with "Secret", value holds the Secret's keys. */
  record Row(String field, Object value, String schemaSays, String operatorSays) {
    @Override
    public String toString() {
      String v = String.valueOf(value);
      return field + " = " + (v.length() > 40 ? v.substring(0, 37) + "..." : v);
    }
  }

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
            "should match '^[^{}]+$'",
            "spec.electionKey must not contain braces"),
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
            null,
            "spec.redis.secretRef.name 'Payments_Redis' is not a valid Secret name"),
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

  /** The same for a RedisLock's spec: the field, the bad value, the schema's and operator's say. */
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
        row("spec.ttl", "soon", TTL_PATTERN, "spec.ttl: 'soon' is not a duration"));
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

    List<String> refusals = schemaRefusals(group.get("spec"));
    if (row.schemaSays() == null) {
      assertThat(refusals).as("the schema lets %s through", row).isEmpty();
    } else if (refusals.isEmpty()) {
      assertThat(celMessagesAround(row.field()))
          .as("a CEL rule on %s or around it", row.field())
          .anySatisfy(m -> assertThat(m).contains(row.schemaSays()));
    } else {
      assertThat(refusals).anySatisfy(r -> assertThat(r).contains(row.schemaSays()));
    }

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
      assertThatThrownBy(() -> GroupSettings.of(parsed))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(row.operatorSays())
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .as("a message short enough to read")
                      .hasSizeLessThan(300));
    }
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
    List<String> refusals = schemaRefusals(LOCK_SCHEMA, lock.get("spec"));
    if (row.schemaSays() == null) {
      assertThat(refusals).as("the schema lets %s through", row).isEmpty();
    } else if (refusals.isEmpty()) {
      assertThat(celMessagesAround(LOCK_SCHEMA, row.field()))
          .as("a CEL rule on %s or around it", row.field())
          .anySatisfy(m -> assertThat(m).contains(row.schemaSays()));
    } else {
      assertThat(refusals).anySatisfy(r -> assertThat(r).contains(row.schemaSays()));
    }
    RedisLock parsed = JSON.treeToValue(lock, RedisLock.class);
    assertThatThrownBy(() -> LockSettings.of(parsed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(row.operatorSays())
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .as("a message short enough to read")
                    .hasSizeLessThan(300));
  }

  private static RedisLock grantedLock() {
    return BatonCluster.grantedLock("migration", "30s", "migrate");
  }

  private static JSONSchemaProps schema(String crdFile) {
    return EmbeddedKubernetes.crd(crdFile)
        .getSpec()
        .getVersions()
        .get(0)
        .getSchema()
        .getOpenAPIV3Schema();
  }

  private static void checkSecret(Row row) {
    KubernetesClient client = kube.client();
    String name = "redis-" + SECRETS.incrementAndGet();
    @SuppressWarnings("unchecked")
    Map<String, String> data = (Map<String, String>) row.value();
    client
        .secrets()
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .endMetadata()
                .addToStringData(data)
                .build())
        .create();
    Throwable thrown = catchThrowable(() -> new RedisSecrets(client).settings(NS, name));
    assertThat(thrown)
        .isInstanceOf(RedisSecrets.SecretProblem.class)
        .hasMessageStartingWith("Secret " + NS + "/" + name)
        .hasMessageContaining(row.operatorSays())
        .hasMessageNotContaining(PASSWORD);
    assertThat(((RedisSecrets.SecretProblem) thrown).reason()).isEqualTo("InvalidSecret");
  }

  private static Arguments row(String field, Object value, String schemaSays, String operatorSays) {
    return Arguments.of(new Row(field, value, schemaSays, operatorSays));
  }

  private static Map<String, Object> expression(String key, String operator, String... values) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("key", key);
    e.put("operator", operator);
    if (values.length > 0) {
      e.put("values", List.of(values));
    }
    return Map.of("matchExpressions", List.of(e));
  }

  /** Sets (or, for null, removes) the value at a dotted path, making objects on the way. */
  private static void set(ObjectNode root, String path, Object value) {
    String[] parts = path.split("\\.");
    ObjectNode node = root;
    for (int i = 0; i < parts.length - 1; i++) {
      JsonNode next = node.get(parts[i]);
      node = next instanceof ObjectNode o ? o : node.putObject(parts[i]);
    }
    String last = parts[parts.length - 1];
    if (value == null) {
      node.remove(last);
    } else {
      node.set(last, JSON.valueToTree(value));
    }
  }

  /**
   * What the API server's structural checks say about a spec: type, required, pattern, minLength,
   * maxLength, minimum, maximum, minItems and maxItems, walked through properties and items, worded
   * the way the API server words them.
   */
  private static List<String> schemaRefusals(JsonNode spec) {
    return schemaRefusals(SCHEMA, spec);
  }

  private static List<String> schemaRefusals(JSONSchemaProps schema, JsonNode spec) {
    List<String> out = new ArrayList<>();
    validate(schema.getProperties().get("spec"), spec, "spec", out);
    return out;
  }

  private static void validate(
      JSONSchemaProps schema, JsonNode value, String path, List<String> out) {
    if (schema == null || value == null || value.isNull()) {
      return;
    }
    String type = schema.getType();
    boolean typeOk =
        type == null
            || switch (type) {
              case "string" -> value.isTextual();
              case "boolean" -> value.isBoolean();
              case "integer" -> value.isIntegralNumber();
              case "object" -> value.isObject();
              case "array" -> value.isArray();
              default -> true;
            };
    if (!typeOk) {
      out.add(
          path + ": Invalid value: " + value + ": " + path + " in body must be of type " + type);
      return;
    }
    if (value.isTextual()) {
      String s = value.asText();
      if (schema.getMaxLength() != null && s.length() > schema.getMaxLength()) {
        out.add(path + ": Too long: may not be longer than " + schema.getMaxLength());
      }
      if (schema.getMinLength() != null && s.length() < schema.getMinLength()) {
        out.add(
            path
                + ": Invalid value: \""
                + s
                + "\": "
                + path
                + " in body should be at least "
                + schema.getMinLength()
                + " chars long");
      }
      if (schema.getPattern() != null
          && !java.util.regex.Pattern.compile(schema.getPattern()).matcher(s).find()) {
        out.add(
            path
                + ": Invalid value: "
                + path
                + " in body should match '"
                + schema.getPattern()
                + "'");
      }
      List<JsonNode> allowed = schema.getEnum() == null ? List.of() : schema.getEnum();
      if (!allowed.isEmpty()
          && allowed.stream().noneMatch(e -> e.isTextual() && e.asText().equals(s))) {
        out.add(
            path
                + ": Unsupported value: \""
                + s
                + "\": supported values: "
                + String.join(", ", allowed.stream().map(e -> "\"" + e.asText() + "\"").toList()));
      }
    }
    if (value.isObject()) {
      if (schema.getRequired() != null) {
        for (String r : schema.getRequired()) {
          if (!value.has(r) || value.get(r).isNull()) {
            out.add("Required value: " + path + "." + r);
          }
        }
      }
      if (schema.getProperties() != null) {
        schema
            .getProperties()
            .forEach((k, sub) -> validate(sub, value.get(k), path + "." + k, out));
      }
      if (schema.getAdditionalProperties() != null
          && schema.getAdditionalProperties().getSchema() != null) {
        value
            .fields()
            .forEachRemaining(
                f ->
                    validate(
                        schema.getAdditionalProperties().getSchema(),
                        f.getValue(),
                        path + "." + f.getKey(),
                        out));
      }
    }
    if (value.isIntegralNumber()) {
      long n = value.asLong();
      if (schema.getMaximum() != null && n > schema.getMaximum()) {
        out.add(
            path
                + ": Invalid value: "
                + n
                + ": "
                + path
                + " in body should be less than or equal to "
                + schema.getMaximum().longValue());
      }
      if (schema.getMinimum() != null && n < schema.getMinimum()) {
        out.add(
            path
                + ": Invalid value: "
                + n
                + ": "
                + path
                + " in body should be greater than or equal to "
                + schema.getMinimum().longValue());
      }
    }
    if (value.isArray()) {
      if (schema.getMinItems() != null && value.size() < schema.getMinItems()) {
        out.add(
            path
                + ": Invalid value: "
                + value.size()
                + ": "
                + path
                + " in body should have at least "
                + schema.getMinItems()
                + " items");
      }
      if (schema.getMaxItems() != null && value.size() > schema.getMaxItems()) {
        out.add(
            path
                + ": Too many: "
                + value.size()
                + ": must have at most "
                + schema.getMaxItems()
                + " items");
      }
    }
    if (value.isArray() && schema.getItems() != null) {
      for (int i = 0; i < value.size(); i++) {
        validate(schema.getItems().getSchema(), value.get(i), path + "[" + i + "]", out);
      }
    }
  }

  /** Messages of the CEL rules on the field at this path and on the objects that hold it. */
  private static List<String> celMessagesAround(String path) {
    return celMessagesAround(SCHEMA, path);
  }

  private static List<String> celMessagesAround(JSONSchemaProps schema, String path) {
    List<String> out = new ArrayList<>();
    JSONSchemaProps node = schema;
    for (String part : path.split("\\.")) {
      node = node.getProperties().get(part);
      assertThat(node).as("schema of %s", path).isNotNull();
      if (node.getXKubernetesValidations() != null) {
        node.getXKubernetesValidations().stream().map(ValidationRule::getMessage).forEach(out::add);
      }
    }
    return out;
  }
}
