package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CRDs' CEL rules evaluated with cel-java, a CEL implementation of its own (the API server uses
 * cel-go, and the tests' mock runs no CEL at all): every rule compiles with {@code self} and {@code
 * oldSelf} as the server declares them, and each does what its message says on values a user would
 * write. The rules use only standard CEL (fields, {@code has}, {@code size}, {@code in}, {@code
 * duration}), which both implementations share.
 */
class CelRulesTest {

  private static final Cel CEL =
      CelFactory.standardCelBuilder()
          // has(), all(), exists(): macros in CEL, enabled by Kubernetes as by every host.
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("self", SimpleType.DYN)
          .addVar("oldSelf", SimpleType.DYN)
          .build();

  private record Rule(String path, String rule, String message) {}

  private static List<Rule> rules(String file) throws IOException {
    CustomResourceDefinition crd;
    try (InputStream in = Files.newInputStream(Path.of("../crds", file))) {
      crd = Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
    List<Rule> out = new ArrayList<>();
    collect("", crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema(), out);
    return out;
  }

  private static void collect(String path, JSONSchemaProps schema, List<Rule> out) {
    if (schema == null) {
      return;
    }
    if (schema.getXKubernetesValidations() != null) {
      for (ValidationRule r : schema.getXKubernetesValidations()) {
        out.add(new Rule(path.isEmpty() ? "." : path, r.getRule(), r.getMessage()));
      }
    }
    if (schema.getProperties() != null) {
      schema.getProperties().forEach((name, p) -> collect(path + "." + name, p, out));
    }
    if (schema.getItems() != null) {
      collect(path + "[]", schema.getItems().getSchema(), out);
    }
  }

  private static Rule rule(String file, String messageStart) throws IOException {
    return rules(file).stream()
        .filter(r -> r.message().startsWith(messageStart))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no rule in " + file + ": " + messageStart));
  }

  /** What the API server would answer: the rule's value, with {@code oldSelf} null on create. */
  private static boolean allows(Rule rule, Object self, Object oldSelf) throws Exception {
    Map<String, Object> vars = new HashMap<>();
    vars.put("self", self);
    if (oldSelf != null) {
      vars.put("oldSelf", oldSelf);
    }
    return (Boolean) CEL.createProgram(CEL.compile(rule.rule()).getAst()).eval(vars);
  }

  @Test
  void everyRuleCompilesAndNoneIsLeftOut() throws Exception {
    List<Rule> all = new ArrayList<>(rules("leadergroups.baton.dev-v1.yml"));
    all.addAll(rules("redislocks.baton.dev-v1.yml"));
    for (Rule r : all) {
      assertThat(CEL.compile(r.rule()).getAst()).as(r.path() + ": " + r.rule()).isNotNull();
    }
    // The rules of the model, each counted: a rule dropped by the generator shows here.
    assertThat(all).hasSize(16);
  }

  @Test
  void roleLabelElectionKeyAndLockKeyAreImmutable() throws Exception {
    Rule roleLabel = rule("leadergroups.baton.dev-v1.yml", "roleLabel is immutable");
    assertThat(allows(roleLabel, "baton.dev/role", "baton.dev/role")).isTrue();
    assertThat(allows(roleLabel, "shop.example/role", "baton.dev/role")).isFalse();

    Rule electionKey = rule("leadergroups.baton.dev-v1.yml", "electionKey is immutable");
    Map<String, Object> none = Map.of("selector", Map.of());
    Map<String, Object> a = Map.of("electionKey", "shop/payments");
    Map<String, Object> b = Map.of("electionKey", "shop/orders");
    assertThat(allows(electionKey, none, none)).isTrue();
    assertThat(allows(electionKey, a, a)).isTrue();
    assertThat(allows(electionKey, b, a)).isFalse();
    assertThat(allows(electionKey, a, none)).as("added later").isFalse();
    assertThat(allows(electionKey, none, a)).as("removed").isFalse();

    Rule key = rule("redislocks.baton.dev-v1.yml", "key is immutable");
    assertThat(allows(key, Map.of("key", "orders"), Map.of("key", "orders"))).isTrue();
    assertThat(allows(key, Map.of("key", "refunds"), Map.of("key", "orders"))).isFalse();
    assertThat(allows(key, Map.of(), Map.of("key", "orders"))).isFalse();
  }

  @Test
  void durationsAndRedlockShapesAreCheckedAsTheirMessagesSay() throws Exception {
    Rule delay = rule("leadergroups.baton.dev-v1.yml", "failoverDelay must be at most 1h");
    assertThat(allows(delay, "30s", null)).isTrue();
    assertThat(allows(delay, "2h", null)).isFalse();

    Rule ttl = rule("redislocks.baton.dev-v1.yml", "ttl must be between 1s and 1h");
    assertThat(allows(ttl, "30s", null)).isTrue();
    assertThat(allows(ttl, "500ms", null)).isFalse();
    assertThat(allows(ttl, "90m", null)).isFalse();

    Rule three = rule("redislocks.baton.dev-v1.yml", "redlock needs at least 3 instances");
    Rule odd = rule("redislocks.baton.dev-v1.yml", "redlock needs an odd number");
    Map<String, Object> fourInstances =
        Map.of("instances", List.of(Map.of(), Map.of(), Map.of(), Map.of()));
    assertThat(allows(three, fourInstances, null)).isTrue();
    assertThat(allows(odd, fourInstances, null)).isFalse();
    assertThat(allows(three, Map.of("instances", List.of(Map.of(), Map.of())), null)).isFalse();

    Rule notBoth = rule("redislocks.baton.dev-v1.yml", "set spec.redis or spec.redlock");
    assertThat(allows(notBoth, Map.of("redis", Map.of()), null)).isTrue();
    assertThat(allows(notBoth, Map.of("redis", Map.of(), "redlock", Map.of()), null)).isFalse();
  }

  @Test
  void leaseSelectorAndRoleLabelRules() throws Exception {
    String groups = "leadergroups.baton.dev-v1.yml";
    Rule shorter = rule(groups, "renewInterval must be shorter than ttl");
    Rule ttl = rule(groups, "ttl must be between 1s and 1h");
    Rule atLeast = rule(groups, "renewInterval must be at least 100ms");
    Map<String, Object> usual = Map.of("ttl", "3s", "renewInterval", "500ms");
    assertThat(allows(shorter, usual, null)).isTrue();
    assertThat(allows(ttl, usual, null)).isTrue();
    assertThat(allows(atLeast, usual, null)).isTrue();
    assertThat(allows(shorter, Map.of("ttl", "3s", "renewInterval", "3s"), null)).isFalse();
    assertThat(allows(ttl, Map.of("ttl", "500ms", "renewInterval", "100ms"), null)).isFalse();
    assertThat(allows(atLeast, Map.of("ttl", "3s", "renewInterval", "50ms"), null)).isFalse();

    Rule selector = rule(groups, "selector must not be empty");
    assertThat(allows(selector, Map.of("matchLabels", Map.of("app", "payments")), null)).isTrue();
    assertThat(allows(selector, Map.of(), null)).isFalse();
    assertThat(allows(selector, Map.of("matchLabels", Map.of()), null)).isFalse();

    Rule notSelected = rule(groups, "roleLabel must not be a label the selector matches on");
    Map<String, Object> app = Map.of("matchLabels", Map.of("app", "payments"));
    assertThat(allows(notSelected, Map.of("roleLabel", "baton.dev/role", "selector", app), null))
        .isTrue();
    assertThat(allows(notSelected, Map.of("roleLabel", "app", "selector", app), null)).isFalse();
  }

  @Test
  void electionKeysAndLockKeysOfBatonsOwnAreRefused() throws Exception {
    for (String file : List.of("leadergroups.baton.dev-v1.yml", "redislocks.baton.dev-v1.yml")) {
      Rule reserved = rule(file, "the key must not start with baton-operator/");
      assertThat(allows(reserved, "shop/orders", null)).isTrue();
      assertThat(allows(reserved, "shop/orders:v2", null)).as("a ':' after the first '/'").isTrue();
      assertThat(allows(reserved, "global/eu/jobs", null)).isTrue();
      assertThat(allows(reserved, "gate:shop/orders", null)).isFalse();
      assertThat(allows(reserved, "gate:warm-up", null)).isFalse();
      assertThat(allows(reserved, "acl:shop", null)).isFalse();
      assertThat(allows(reserved, "baton-operator/default", null)).isFalse();
    }
  }
}
