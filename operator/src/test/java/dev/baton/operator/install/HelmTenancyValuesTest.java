package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.operator.config.OperatorConfig;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The chart's multi-tenant values reach the operator's environment as it reads it: shared key
 * prefixes, role-label prefixes, and per-group Redis users (with the Secret writes they need).
 */
class HelmTenancyValuesTest {

  @Test
  void tenancyValuesBecomeTheOperatorsEnvironment() {
    List<HasMetadata> objects =
        HelmChart.render(
            """
            tenancy:
              sharedKeyPrefixes: [global/, locks/]
              roleLabelPrefixes: [example.com/]
            redisAcl: {perGroupUsers: true}
            """);
    Map<String, String> env = env(objects);
    assertThat(env)
        .containsEntry(OperatorConfig.SHARED_KEY_PREFIXES, "global/,locks/")
        .containsEntry(OperatorConfig.ROLE_LABEL_PREFIXES, "example.com/")
        .containsEntry(OperatorConfig.REDIS_ACL_PER_GROUP, "true");
    OperatorConfig config = OperatorConfig.from(env, true);
    assertThat(config.sharedKeyPrefixes()).containsExactly("global/", "locks/");
    assertThat(config.roleLabelPrefixes()).containsExactly("example.com/");
    assertThat(config.redisAclPerGroup()).isTrue();
    assertThat(secretVerbs(objects)).contains("get", "create", "update");
  }

  @Test
  void byDefaultNoPrefixIsSharedAndNoSecretIsWritten() {
    List<HasMetadata> objects = HelmChart.renderDefaults();
    assertThat(env(objects))
        .doesNotContainKeys(
            OperatorConfig.SHARED_KEY_PREFIXES,
            OperatorConfig.ROLE_LABEL_PREFIXES,
            OperatorConfig.REDIS_ACL_PER_GROUP);
    assertThat(secretVerbs(objects)).containsExactly("get");
  }

  @Test
  void theSchemaRefusesAPrefixWithoutItsSlash() {
    assertThatThrownBy(() -> HelmChart.render("tenancy: {sharedKeyPrefixes: [global]}"))
        .hasMessageContaining("sharedKeyPrefixes");
    assertThatThrownBy(() -> HelmChart.render("redisAcl: {perGroupUsers: \"yes\"}"))
        .hasMessageContaining("perGroupUsers");
  }

  private static Map<String, String> env(List<HasMetadata> objects) {
    return Manifests.single(objects, Deployment.class)
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .getEnv()
        .stream()
        .filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
  }

  private static List<String> secretVerbs(List<HasMetadata> objects) {
    return Manifests.ofKind(objects, ClusterRole.class).stream()
        .flatMap(r -> r.getRules().stream())
        .filter(r -> r.getResources().contains("secrets"))
        .map(PolicyRule::getVerbs)
        .flatMap(List::stream)
        .distinct()
        .toList();
  }
}
