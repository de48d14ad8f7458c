package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart's files/crds/ (which templates/crds.yaml installs and upgrades with the release) is a
 * byte-for-byte copy of the top-level crds/, the one source (itself generated from the Java model).
 * After regenerating: {@code cp crds/*.yml helm/baton-operator/files/crds/}.
 */
class HelmCrdsTest {

  private static final Path CHART_CRDS = InstallFiles.CHART.resolve("files/crds");
  private static final String HOW_TO_FIX =
      "helm/baton-operator/files/crds/ must be a copy of crds/; run from the repository root:"
          + " rm -f helm/baton-operator/files/crds/*.yml"
          + " && cp crds/*.yml helm/baton-operator/files/crds/";

  @Test
  void chartCrdsAreTheTopLevelCrdsByteForByte() throws IOException {
    assertThat(InstallFiles.CRDS).as("the top-level crds/ directory").isDirectory();
    Set<String> source = manifestNames(InstallFiles.CRDS);
    Set<String> copy = manifestNames(CHART_CRDS);

    assertThat(source).as("files in crds/").contains("leadergroups.baton.dev-v1.yml");
    assertThat(copy).as(HOW_TO_FIX).isEqualTo(source);
    for (String name : source) {
      assertThat(CHART_CRDS.resolve(name))
          .as("%s differs. %s", name, HOW_TO_FIX)
          .hasSameBinaryContentAs(InstallFiles.CRDS.resolve(name));
    }
  }

  @Test
  void chartCrdsAreBatonCustomResourceDefinitions() throws IOException {
    for (String name : manifestNames(CHART_CRDS)) {
      List<HasMetadata> objects =
          Manifests.parse(
              Files.readString(CHART_CRDS.resolve(name)), "helm/baton-operator/files/crds/" + name);

      CustomResourceDefinition crd = Manifests.single(objects, CustomResourceDefinition.class);
      assertThat(crd.getSpec().getGroup()).isEqualTo("baton.dev");
      assertThat(name).startsWith(crd.getMetadata().getName() + "-");
      assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
      assertThat(crd.getSpec().getVersions())
          .anySatisfy(
              v -> {
                assertThat(v.getName()).isEqualTo("v1alpha1");
                assertThat(v.getSubresources().getStatus()).isNotNull();
              });
    }
  }

  @Test
  void theChartHasNoCrdsDirectory() {
    // Helm would install a crds/ directory itself on the first install, before the templates, and
    // the templated CRDs would then clash with them.
    assertThat(InstallFiles.CHART.resolve("crds")).doesNotExist();
  }

  /** The manifests in a directory: YAML and JSON files. */
  private static Set<String> manifestNames(Path dir) throws IOException {
    Set<String> names = new TreeSet<>();
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (Stream<Path> files = Files.list(dir)) {
      files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yml") || n.endsWith(".yaml") || n.endsWith(".json"))
          .forEach(names::add);
    }
    return names;
  }
}
