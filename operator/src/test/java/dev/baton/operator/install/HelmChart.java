package dev.baton.operator.install;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** Renders the chart with the real Helm library (helm-java), as `helm template` would. */
final class HelmChart {

  static final String RELEASE = "baton";
  static final String NAMESPACE = "baton-system";

  /** Helm's library defaults to Kubernetes 1.20, below the chart's kubeVersion constraint. */
  static final String KUBE_VERSION = "1.30.0";

  /** Kinds whose model is not on the classpath, read as GenericKubernetesResource. */
  static final Set<String> UNTYPED_KINDS =
      Set.of("ServiceMonitor", "PodMonitor", "PrometheusRule", "Issuer", "Certificate");

  private HelmChart() {}

  static Helm helm() {
    return new Helm(InstallFiles.CHART);
  }

  /** The rendered manifests for these values (YAML text, may be empty), as text. */
  static String renderText(String valuesYaml, Path... valuesFiles) {
    return renderText(NAMESPACE, valuesYaml, valuesFiles);
  }

  /** The same, installed into another namespace. */
  static String renderText(String namespace, String valuesYaml, Path... valuesFiles) {
    Path file = null;
    try {
      TemplateCommand template =
          helm()
              .template()
              .withName(RELEASE)
              .withNamespace(namespace)
              .withKubeVersion(KUBE_VERSION);
      for (Path valuesFile : valuesFiles) {
        template = template.withValuesFile(valuesFile);
      }
      if (!valuesYaml.isBlank()) {
        file = Files.createTempFile("baton-values-", ".yaml");
        Files.writeString(file, valuesYaml);
        template = template.withValuesFile(file);
      }
      return template.call();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (file != null) {
        file.toFile().delete();
      }
    }
  }

  /**
   * The chart's test hooks for these values. helm-java renders what `helm template` would, without
   * test hooks; so a copy of the chart whose tests/ templates lose their hook annotations (which
   * {@link #testHookAnnotations} reads from the real files) renders them as ordinary objects.
   */
  static List<HasMetadata> renderTests(String valuesYaml) {
    Path copy = null;
    try {
      copy = Files.createTempDirectory("baton-chart-");
      Path target = copy.resolve("baton-operator");
      try (var files = Files.walk(InstallFiles.CHART)) {
        for (Path f : files.toList()) {
          Path to = target.resolve(InstallFiles.CHART.relativize(f).toString());
          if (Files.isDirectory(f)) {
            Files.createDirectories(to);
          } else {
            Files.copy(f, to);
          }
        }
      }
      Path tests = target.resolve("templates/tests");
      try (var files = Files.list(tests)) {
        for (Path f : files.toList()) {
          Files.write(
              f, Files.readAllLines(f).stream().filter(l -> !l.contains("helm.sh/hook")).toList());
        }
      }
      Path values = copy.resolve("values.yaml");
      Files.writeString(values, valuesYaml);
      String out =
          new Helm(target)
              .template()
              .withName(RELEASE)
              .withNamespace(NAMESPACE)
              .withKubeVersion(KUBE_VERSION)
              .withValuesFile(values)
              .call();
      return Manifests.parse(out, "chart tests", UNTYPED_KINDS).stream()
          .filter(o -> o.getKind().equals("Pod"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (copy != null) {
        try (var files = Files.walk(copy)) {
          files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
          // a temporary directory left behind harms no test
        }
      }
    }
  }

  /** The helm.sh/hook annotation lines of a template in templates/tests/. */
  static List<String> testHookAnnotations(String template) throws IOException {
    return Files.readAllLines(InstallFiles.CHART.resolve("templates/tests").resolve(template))
        .stream()
        .map(String::strip)
        .filter(l -> l.startsWith("helm.sh/hook"))
        .toList();
  }

  /** The rendered manifests for these values, parsed strictly into typed objects. */
  static List<HasMetadata> render(String valuesYaml, Path... valuesFiles) {
    return Manifests.parse(renderText(valuesYaml, valuesFiles), "rendered chart", UNTYPED_KINDS);
  }

  /** The same, installed into another namespace. */
  static List<HasMetadata> render(String namespace, String valuesYaml) {
    return Manifests.parse(
        renderText(namespace, valuesYaml), "rendered chart in " + namespace, UNTYPED_KINDS);
  }

  static List<HasMetadata> renderDefaults() {
    return render("");
  }

  /** The release's full name with the test release name ("baton" + "-baton-operator"). */
  static String fullname() {
    return RELEASE + "-baton-operator";
  }
}
