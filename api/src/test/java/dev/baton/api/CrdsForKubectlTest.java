package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The committed CRDs as kubectl users read them: the {@code baton} category, descriptions at the
 * top, conditions as a list map, printer columns with AGE last, and immutable keys. The CEL rules
 * are enforced by the real API server only (the tests' mock runs no CEL): here their text is
 * checked to be well formed and to name only fields the schema has; {@link CelRulesTest} evaluates
 * them.
 */
class CrdsForKubectlTest {

  private static CustomResourceDefinition crd(String file) throws IOException {
    try (InputStream in = Files.newInputStream(Path.of("../crds", file))) {
      return Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
  }

  private static CustomResourceDefinitionVersion version(String file) throws IOException {
    return crd(file).getSpec().getVersions().get(0);
  }

  private static JSONSchemaProps root(String file) throws IOException {
    return version(file).getSchema().getOpenAPIV3Schema();
  }

  @ParameterizedTest
  @ValueSource(strings = {"leadergroups.baton.dev-v1.yml", "redislocks.baton.dev-v1.yml"})
  void bothKindsAreInTheBatonCategoryAndDescribedAtTheTop(String file) throws IOException {
    assertThat(crd(file).getSpec().getNames().getCategories()).containsExactly("baton");
    JSONSchemaProps root = root(file);
    assertThat(root.getDescription()).as("kubectl explain <kind>").isNotBlank();
    assertThat(root.getProperties().get("spec").getDescription()).isNotBlank();
    assertThat(root.getProperties().get("status").getDescription()).isNotBlank();
  }

  @ParameterizedTest
  @ValueSource(strings = {"leadergroups.baton.dev-v1.yml", "redislocks.baton.dev-v1.yml"})
  void conditionsAreAListMapKeyedByTypeWithTheStandardSchema(String file) throws IOException {
    JSONSchemaProps conditions =
        root(file).getProperties().get("status").getProperties().get("conditions");
    assertThat(conditions.getType()).isEqualTo("array");
    assertThat(conditions.getXKubernetesListType()).isEqualTo("map");
    assertThat(conditions.getXKubernetesListMapKeys()).containsExactly("type");
    JSONSchemaProps item = conditions.getItems().getSchema();
    // A list map's keys must be required (or defaulted), or the API server refuses the CRD.
    assertThat(item.getRequired())
        .containsExactlyInAnyOrder("type", "status", "lastTransitionTime", "reason", "message");
    assertThat(item.getProperties().get("status").getEnum())
        .extracting(n -> n.asText())
        .containsExactly("True", "False", "Unknown");
    assertThat(item.getProperties().get("lastTransitionTime").getFormat()).isEqualTo("date-time");
    assertThat(item.getProperties().get("reason").getPattern())
        .isEqualTo("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");
    assertThat(item.getProperties().get("observedGeneration").getType()).isEqualTo("integer");
    assertThat(item.getProperties().get("type").getMaxLength()).isEqualTo(316L);
  }

  @Test
  void leaderGroupColumnsShowRoutingAndRedisWithAgeLast() throws IOException {
    List<CustomResourceColumnDefinition> columns =
        version("leadergroups.baton.dev-v1.yml").getAdditionalPrinterColumns();
    assertThat(columns)
        .extracting(c -> c.getName() + "=" + c.getJsonPath() + " p" + c.getPriority())
        .containsExactly(
            "LEADER=.status.leader p0",
            "TERM=.status.term p0",
            "CANDIDATES=.status.candidates p0",
            "READY=.status.conditions[?(@.type==\"Ready\")].status p0",
            "PAUSED=.spec.paused p0",
            "ROUTED=.status.conditions[?(@.type==\"Routed\")].status p0",
            "REDIS=.status.conditions[?(@.type==\"RedisAvailable\")].status p0",
            "MESSAGE=.status.conditions[?(@.type==\"Ready\")].message p1",
            "AGE=.metadata.creationTimestamp p0");
  }

  @Test
  void redisLockColumnsKeepTheirNamesWithTheMessageWideAndAgeLast() throws IOException {
    assertThat(version("redislocks.baton.dev-v1.yml").getAdditionalPrinterColumns())
        .extracting(c -> c.getName() + " p" + c.getPriority())
        .containsExactly("HOLDER p0", "TOKEN p0", "EXPIRES p0", "READY p0", "MESSAGE p1", "AGE p0");
  }

  @Test
  void roleLabelAndElectionKeyAreImmutable() throws IOException {
    JSONSchemaProps spec = root("leadergroups.baton.dev-v1.yml").getProperties().get("spec");

    assertThat(spec.getProperties().get("roleLabel").getXKubernetesValidations())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getRule()).isEqualTo("self == oldSelf");
              assertThat(r.getMessage()).startsWith("roleLabel is immutable");
            });
    assertThat(spec.getProperties().get("roleLabel").getDefault())
        .as("a default makes the field always set, so the transition rule always runs")
        .isNotNull();

    ValidationRule key = transitionRule(spec, "electionKey");
    assertThat(key.getMessage()).startsWith("electionKey is immutable");
    assertWellFormed(key.getRule(), spec);
  }

  @Test
  void aLocksKeyIsImmutable() throws IOException {
    JSONSchemaProps spec = root("redislocks.baton.dev-v1.yml").getProperties().get("spec");

    ValidationRule key = transitionRule(spec, "key");
    assertThat(key.getMessage()).startsWith("key is immutable");
    assertWellFormed(key.getRule(), spec);
  }

  /**
   * The rule on spec that keeps an optional field as it was: set or unset alike, and equal when set
   * (a rule on the field itself would only run when old and new both have it).
   */
  private static ValidationRule transitionRule(JSONSchemaProps spec, String field) {
    assertThat(spec.getProperties()).containsKey(field);
    assertThat(spec.getProperties().get(field).getDefault()).as("%s is optional", field).isNull();
    List<ValidationRule> rules =
        spec.getXKubernetesValidations().stream()
            .filter(r -> r.getRule().contains("oldSelf." + field))
            .toList();
    assertThat(rules).as("transition rules on spec about %s", field).hasSize(1);
    String rule = rules.get(0).getRule();
    assertThat(rule)
        .contains("has(self." + field + ") == has(oldSelf." + field + ")")
        .contains("!has(self." + field + ")")
        .contains("self." + field + " == oldSelf." + field);
    return rules.get(0);
  }

  private static final Pattern FIELD = Pattern.compile("\\b(?:self|oldSelf)\\.([A-Za-z]+)");

  /** Balanced parentheses, and every self.x / oldSelf.x names a property of the schema. */
  private static void assertWellFormed(String rule, JSONSchemaProps schema) {
    int depth = 0;
    for (char c : rule.toCharArray()) {
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      assertThat(depth).as("parentheses of %s", rule).isNotNegative();
    }
    assertThat(depth).as("parentheses of %s", rule).isZero();
    Matcher m = FIELD.matcher(rule);
    int fields = 0;
    while (m.find()) {
      fields++;
      assertThat(schema.getProperties()).as("a field %s names", rule).containsKey(m.group(1));
    }
    assertThat(fields).isPositive();
  }
}
