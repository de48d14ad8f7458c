package dev.baton.operator.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.testkit.EmbeddedKubernetes;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import java.util.ArrayList;
import java.util.List;

/**
 * What the API server would say about a spec, from the generated CRD's schema: the mock API server
 * checks no schema, so the bad-input tables evaluate its structural keywords here. CEL rules cannot
 * be evaluated, so they are only listed, for a table to check that the rule with a row's message
 * sits on the field or an object around it.
 */
final class CrdSchemaCheck {

  private CrdSchemaCheck() {}

  static JSONSchemaProps schema(String crdFile) {
    return EmbeddedKubernetes.crd(crdFile)
        .getSpec()
        .getVersions()
        .get(0)
        .getSchema()
        .getOpenAPIV3Schema();
  }

  /**
   * What the API server's structural checks say about a spec: type, required, pattern, minLength,
   * maxLength, minimum, maximum, minItems and maxItems, walked through properties and items, worded
   * the way the API server words them.
   */
  static List<String> schemaRefusals(JSONSchemaProps schema, JsonNode spec) {
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
        out.add(invalid(path, n, "be less than or equal to " + schema.getMaximum().longValue()));
      }
      if (schema.getMinimum() != null && n < schema.getMinimum()) {
        out.add(invalid(path, n, "be greater than or equal to " + schema.getMinimum().longValue()));
      }
    }
    if (value.isArray()) {
      if (schema.getMinItems() != null && value.size() < schema.getMinItems()) {
        out.add(invalid(path, value.size(), "have at least " + schema.getMinItems() + " items"));
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

  /** The API server's words for a value out of bounds. */
  private static String invalid(String path, Object value, String should) {
    return path + ": Invalid value: " + value + ": " + path + " in body should " + should;
  }

  /** Messages of the CEL rules on the field at this path and on the objects that hold it. */
  static List<String> celMessagesAround(JSONSchemaProps schema, String path) {
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
