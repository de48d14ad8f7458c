package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * The build packages the chart as `helm package` does (operator/target/helm/), the archive a
 * release pushes to an OCI registry; the package holds the chart, its CRDs and its README, and
 * renders as the chart directory does.
 */
class HelmPackageTest {

  static final Path PACKAGES = Path.of("target", "helm");

  @Test
  void packagesTheChartWithItsCrdsAndReadme() throws IOException {
    Files.createDirectories(PACKAGES);
    HelmChart.helm().packageIt().withDestination(PACKAGES).call();
    String version = chartVersion();
    Path archive = PACKAGES.resolve("baton-operator-" + version + ".tgz");

    assertThat(archive).isRegularFile();
    assertThat(entries(archive))
        .contains(
            "baton-operator/Chart.yaml",
            "baton-operator/values.yaml",
            "baton-operator/values.schema.json",
            "baton-operator/README.md",
            "baton-operator/files/crds/leadergroups.baton.dev-v1.yml",
            "baton-operator/files/crds/redislocks.baton.dev-v1.yml",
            "baton-operator/templates/deployment.yaml");
    assertThat(Helm.show(archive.toString()).chart().call())
        .contains("name: baton-operator")
        .contains("version: " + version);
    assertThat(
            new Helm(archive)
                .template()
                .withName(HelmChart.RELEASE)
                .withNamespace(HelmChart.NAMESPACE)
                .withKubeVersion(HelmChart.KUBE_VERSION)
                .call())
        .isEqualTo(HelmChart.renderText(""));
  }

  private static String chartVersion() throws IOException {
    return Files.readAllLines(InstallFiles.CHART.resolve("Chart.yaml")).stream()
        .filter(l -> l.startsWith("version:"))
        .map(l -> l.substring("version:".length()).trim())
        .findFirst()
        .orElseThrow();
  }

  /** The file names in a .tgz, read with the JDK alone (a tar header is 512 bytes). */
  private static List<String> entries(Path tgz) throws IOException {
    List<String> names = new ArrayList<>();
    try (InputStream in = new GZIPInputStream(Files.newInputStream(tgz))) {
      byte[] header = new byte[512];
      while (in.readNBytes(header, 0, 512) == 512) {
        String name = new String(header, 0, 100, java.nio.charset.StandardCharsets.US_ASCII);
        name = name.substring(0, name.indexOf('\0') < 0 ? 100 : name.indexOf('\0'));
        if (name.isEmpty()) {
          break;
        }
        String sizeField =
            new String(header, 124, 12, java.nio.charset.StandardCharsets.US_ASCII)
                .replace("\0", "")
                .trim();
        long size = sizeField.isEmpty() ? 0 : Long.parseLong(sizeField, 8);
        char type = (char) header[156];
        if (type == '0' || type == '\0') {
          names.add(name);
        }
        in.skipNBytes((size + 511) / 512 * 512);
      }
    }
    return names;
  }
}
