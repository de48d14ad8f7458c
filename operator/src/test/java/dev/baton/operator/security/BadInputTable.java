package dev.baton.operator.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The shape shared by the bad-input tables ({@link BadInputTest}, {@link BadLockInputTest}): a row,
 * the values rows are written with, and how a row's value is put into an otherwise valid resource.
 */
final class BadInputTable {

  static final ObjectMapper JSON = Serialization.jsonMapper();
  static final String UNKNOWN_OPERATOR =
      "Unsupported value: \"%s\": supported values:"
          + " \"DoesNotExist\", \"Exists\", \"In\", \"NotIn\"";
  static final String TTL_PATTERN = "should match '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$'";

  private BadInputTable() {}

  /** One row: where {@code field} starts with "Secret", value holds the Secret's keys. */
  record Row(String field, Object value, String schemaSays, String operatorSays) {
    @Override
    public String toString() {
      String v = String.valueOf(value);
      return field + " = " + (v.length() > 40 ? v.substring(0, 37) + "..." : v);
    }
  }

  static Arguments row(String field, Object value, String schemaSays, String operatorSays) {
    return Arguments.of(new Row(field, value, schemaSays, operatorSays));
  }

  static Map<String, Object> expression(String key, String operator, String... values) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("key", key);
    e.put("operator", operator);
    if (values.length > 0) {
      e.put("values", List.of(values));
    }
    return Map.of("matchExpressions", List.of(e));
  }

  /**
   * What the schema says of the row's value in {@code spec}: nothing, if the row expects nothing;
   * else a refusal in the row's words, or, where the structural keywords let the value through, a
   * CEL rule on the field or around it in those words.
   */
  static void assertSchemaSays(JSONSchemaProps schema, JsonNode spec, Row row) {
    List<String> refusals = CrdSchemaCheck.schemaRefusals(schema, spec);
    if (row.schemaSays() == null) {
      assertThat(refusals).as("the schema lets %s through", row).isEmpty();
    } else if (refusals.isEmpty()) {
      assertThat(CrdSchemaCheck.celMessagesAround(schema, row.field()))
          .as("a CEL rule on %s or around it", row.field())
          .anySatisfy(m -> assertThat(m).contains(row.schemaSays()));
    } else {
      assertThat(refusals).anySatisfy(r -> assertThat(r).contains(row.schemaSays()));
    }
  }

  /** The operator's settings refuse the value in the row's words, short enough to read. */
  static void assertOperatorSays(ThrowingCallable settings, Row row) {
    assertThatThrownBy(settings)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(row.operatorSays())
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .as("a message short enough to read")
                    .hasSizeLessThan(300));
  }

  /** Sets (or, for null, removes) the value at a dotted path, making objects on the way. */
  static void set(ObjectNode root, String path, Object value) {
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
}
