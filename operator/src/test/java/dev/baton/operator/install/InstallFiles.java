package dev.baton.operator.install;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the install files live, found from the module directory Maven runs the tests in. */
final class InstallFiles {

  static final Path ROOT = findRoot();
  static final Path CHART = ROOT.resolve("helm/baton-operator");
  static final Path CRDS = ROOT.resolve("crds");
  static final Path EXAMPLES = ROOT.resolve("examples");
  static final Path DOCKERFILE = ROOT.resolve("Dockerfile");

  private InstallFiles() {}

  private static Path findRoot() {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("pom.xml")) && Files.isDirectory(d.resolve("operator"))) {
        return d;
      }
    }
    throw new IllegalStateException("no repository root (pom.xml next to operator/) above " + dir);
  }
}
