package dev.baton.operator.redislock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.RedisKeys;
import dev.baton.testkit.EmbeddedKubernetes;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import org.junit.jupiter.api.Test;

/**
 * The generated RedisLock CRD: names, columns and the rules the API server enforces (the mock
 * server runs no CEL, so the operator's own checks are tested in RedisLockIT).
 */
class RedisLockCrdTest {

  private static final CustomResourceDefinition CRD =
      EmbeddedKubernetes.crd("redislocks.baton.dev-v1.yml");

  private static CustomResourceDefinitionVersion version() {
    return CRD.getSpec().getVersions().get(0);
  }

  private static JSONSchemaProps spec() {
    return version().getSchema().getOpenAPIV3Schema().getProperties().get("spec");
  }

  @Test
  void namesColumnsAndStatusSubresourceFollowApiMd() {
    assertThat(CRD.getSpec().getGroup()).isEqualTo("baton.dev");
    assertThat(CRD.getSpec().getNames().getPlural()).isEqualTo("redislocks");
    assertThat(CRD.getSpec().getNames().getShortNames()).containsExactly("rlock");
    assertThat(CRD.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(version().getName()).isEqualTo("v1alpha1");
    assertThat(version().getSubresources().getStatus()).isNotNull();
    assertThat(version().getAdditionalPrinterColumns())
        .extracting(c -> c.getName() + "=" + c.getJsonPath())
        .containsExactlyInAnyOrder(
            "HOLDER=.status.holder",
            "TOKEN=.status.fencingToken",
            "EXPIRES=.status.expiresAt",
            "READY=.status.conditions[?(@.type==\"Ready\")].status",
            "MESSAGE=.status.conditions[?(@.type==\"Ready\")].message",
            "AGE=.metadata.creationTimestamp");
  }

  @Test
  void celRulesRefuseRedisWithRedlockTooFewOrEvenInstancesAndATtlOutOfRange() {
    assertThat(spec().getXKubernetesValidations())
        .extracting(ValidationRule::getRule)
        .containsExactly(
            "!(has(self.redis) && has(self.redlock))",
            "has(self.key) == has(oldSelf.key) && (!has(self.key) || self.key == oldSelf.key)");
    assertThat(spec().getProperties().get("redlock").getXKubernetesValidations())
        .extracting(ValidationRule::getRule)
        .containsExactlyInAnyOrder("size(self.instances) >= 3", "size(self.instances) % 2 == 1");
    JSONSchemaProps ttl = spec().getProperties().get("ttl");
    assertThat(ttl.getPattern()).isEqualTo("^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$");
    assertThat(ttl.getXKubernetesValidations())
        .extracting(ValidationRule::getRule)
        .containsExactly("duration(self) >= duration('1s') && duration(self) <= duration('1h')");
    JSONSchemaProps key = spec().getProperties().get("key");
    assertThat(key.getPattern()).isEqualTo(RedisKeys.PATTERN);
    assertThat(key.getXKubernetesValidations())
        .extracting(ValidationRule::getRule)
        .containsExactly(RedisKeys.NOT_RESERVED_RULE);
  }
}
