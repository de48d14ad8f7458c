package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Kubeconfig;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionCondition;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upgrade from the 0.1.0 chart, which shipped the CRDs in its crds/ directory (installed once
 * by Helm, outside the release), to this chart, which manages them as templates: the steps of the
 * chart's README, run with the real Helm library (helm-java) against the embedded API server.
 *
 * <p>Not covered here: client-side OpenAPI validation of the manifests (the embedded API serves no
 * OpenAPI, so installs and upgrades run with {@code disableOpenApiValidation}; HelmChartTest reads
 * every rendered manifest strictly into its typed model instead); the operator's pods actually
 * rolling (the embedded API runs no controllers: Helm creates and patches the Deployment, nobody
 * starts its pods); what a real API server does on a CRD change to its stored objects (the schema
 * only applies to objects written after it); and RBAC (the embedded API checks none: Helm runs here
 * as cluster admin would).
 */
class HelmUpgradeIT {

  /** The release and namespace the README's commands use. */
  static final String RELEASE = "baton-operator";

  static final String NAMESPACE = "baton-system";

  /** helm/baton-operator as it was at 0.1.0, with crds/ (its README says from which commit). */
  static final Path OLD_CHART = Path.of("src/test/resources/charts/baton-operator-0.1.0");

  static final List<String> CRDS = List.of("leadergroups.baton.dev", "redislocks.baton.dev");

  private EmbeddedKubernetes kubernetes;
  private Path kubeconfig;

  @BeforeEach
  void cluster(@TempDir Path dir) {
    kubernetes = EmbeddedKubernetes.startWithoutCrds();
    // The README's step 3: the namespace exists before the chart is installed into it.
    kubernetes
        .client()
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
    kubeconfig = Kubeconfig.write(dir.resolve("kubeconfig"), kubernetes.url(), NAMESPACE);
  }

  @AfterEach
  void stop() {
    kubernetes.close();
  }

  @Test
  void upgradeRefusesTheCrdsOfTheOldChartUntilTheyAreHandedToTheRelease() {
    installOldChart();

    assertThatThrownBy(this::upgrade)
        .hasMessageContaining(
            "CustomResourceDefinition \"leadergroups.baton.dev\" in namespace \"\" exists and"
                + " cannot be imported into the current release: invalid ownership metadata")
        .hasMessageContaining(
            "missing key \"app.kubernetes.io/managed-by\": must be set to \"Helm\"")
        .hasMessageContaining(
            "missing key \"meta.helm.sh/release-name\": must be set to \"" + RELEASE + "\"")
        .hasMessageContaining(
            "missing key \"meta.helm.sh/release-namespace\": must be set to \"" + NAMESPACE + "\"");

    for (String name : CRDS) {
      CustomResourceDefinition crd = crd(name);
      assertThat(crd.getSpec().getNames().getCategories()).as("%s untouched", name).isEmpty();
      assertThat(crd.getMetadata().getAnnotations()).as("%s untouched", name).isNullOrEmpty();
    }
    assertThat(Helm.history(RELEASE).withNamespace(NAMESPACE).withKubeConfig(kubeconfig).call())
        .extracting(r -> r.getRevision() + " " + r.getStatus())
        .as("the release stays at the old chart")
        .contains("1 deployed");
  }

  @Test
  void crdsHandedToTheReleaseAsTheReadmeSaysAreUpgradedAndKeptOnUninstall() throws IOException {
    installOldChart();

    handCrdsToTheRelease();
    Release upgraded = upgrade();

    assertThat(upgraded.getRevision()).isEqualTo("2");
    assertThat(upgraded.getStatus()).isEqualTo("deployed");
    for (String name : CRDS) {
      CustomResourceDefinition crd = crd(name);
      String file = name + "-v1.yml";
      assertThat(json(crd.getSpec()))
          .as("%s is the chart's files/crds/%s now", name, file)
          .isEqualTo(
              json(chartCrd(InstallFiles.CHART.resolve("files/crds").resolve(file)).getSpec()));
      assertThat(crd.getSpec().getNames().getCategories()).containsExactly("baton");
      assertThat(crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema())
          .satisfies(s -> assertThat(s.getDescription()).isNotBlank())
          .satisfies(s -> assertThat(s.getProperties().get("spec").getDescription()).isNotBlank());
      assertThat(crd.getMetadata().getAnnotations())
          .containsEntry("helm.sh/resource-policy", "keep")
          .containsEntry("meta.helm.sh/release-name", RELEASE);
      assertThat(crd.getMetadata().getLabels())
          .containsEntry("app.kubernetes.io/managed-by", "Helm");
      assertThat(crd.getStatus().getConditions())
          .as("%s still established", name)
          .extracting(CustomResourceDefinitionCondition::getType, c -> c.getStatus())
          .contains(org.assertj.core.groups.Tuple.tuple("Established", "True"));
    }
    List<String> columns = leaderGroupColumns();
    assertThat(columns).contains("ROUTED", "REDIS").last().isEqualTo("AGE");

    String uninstalled =
        Helm.uninstall(RELEASE).withNamespace(NAMESPACE).withKubeConfig(kubeconfig).call();

    assertThat(uninstalled).contains("kept due to the resource policy");
    for (String name : CRDS) {
      assertThat(crd(name)).as("%s kept on uninstall", name).isNotNull();
    }
    assertThat(kubernetes.client().apps().deployments().inNamespace(NAMESPACE).list().getItems())
        .as("the rest of the release is gone")
        .isEmpty();
    assertThat(kubernetes.client().secrets().inNamespace(NAMESPACE).list().getItems())
        .as("Helm's release records are gone")
        .isEmpty();
  }

  @Test
  void readmeHandsOverTheCrdsWithTheLabelAndAnnotationsThisTestSets() throws IOException {
    String readme = Files.readString(InstallFiles.CHART.resolve("README.md"));

    assertThat(readme)
        .contains("kubectl label crd \"$crd\" app.kubernetes.io/managed-by=Helm --overwrite")
        .contains("meta.helm.sh/release-name=" + RELEASE)
        .contains("meta.helm.sh/release-namespace=" + NAMESPACE)
        .contains("for crd in " + String.join(" ", CRDS) + "; do");
  }

  private void installOldChart() {
    Release installed =
        new Helm(OLD_CHART)
            .install()
            .withName(RELEASE)
            .withNamespace(NAMESPACE)
            .withKubeConfig(kubeconfig)
            .disableOpenApiValidation()
            .call();

    assertThat(installed.getStatus()).isEqualTo("deployed");
    for (String name : CRDS) {
      CustomResourceDefinition crd = crd(name);
      assertThat(crd).as("%s installed from the old chart's crds/", name).isNotNull();
      assertThat(crd.getSpec().getNames().getCategories()).as("old %s", name).isEmpty();
      assertThat(crd.getMetadata().getLabels())
          .as("crds/ are not part of the release")
          .doesNotContainKey("app.kubernetes.io/managed-by");
    }
    assertThat(leaderGroupColumns()).doesNotContain("ROUTED", "REDIS");
  }

  /** The README's loop: kubectl label and kubectl annotate (each a JSON merge patch). */
  private void handCrdsToTheRelease() {
    for (String name : CRDS) {
      var crd = kubernetes.client().apiextensions().v1().customResourceDefinitions().withName(name);
      crd.patch(
          PatchContext.of(PatchType.JSON_MERGE),
          "{\"metadata\":{\"labels\":{\"app.kubernetes.io/managed-by\":\"Helm\"}}}");
      crd.patch(
          PatchContext.of(PatchType.JSON_MERGE),
          Serialization.asJson(
              Map.of(
                  "metadata",
                  Map.of(
                      "annotations",
                      Map.of(
                          "meta.helm.sh/release-name", RELEASE,
                          "meta.helm.sh/release-namespace", NAMESPACE)))));
    }
  }

  /** helm upgrade baton-operator helm/baton-operator -n baton-system (default values). */
  private Release upgrade() {
    return new Helm(InstallFiles.CHART)
        .upgrade()
        .withName(RELEASE)
        .withNamespace(NAMESPACE)
        .withKubeConfig(kubeconfig)
        .disableOpenApiValidation()
        .call();
  }

  /** The columns kubectl get leadergroups shows, by name. */
  private List<String> leaderGroupColumns() {
    return crd("leadergroups.baton.dev")
        .getSpec()
        .getVersions()
        .get(0)
        .getAdditionalPrinterColumns()
        .stream()
        .map(CustomResourceColumnDefinition::getName)
        .toList();
  }

  private CustomResourceDefinition crd(String name) {
    return kubernetes
        .client()
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(name)
        .get();
  }

  private static CustomResourceDefinition chartCrd(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
  }

  private static JsonNode json(Object o) {
    return Serialization.jsonMapper().valueToTree(o);
  }
}
