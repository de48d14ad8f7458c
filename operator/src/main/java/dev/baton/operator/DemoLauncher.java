package dev.baton.operator;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code java -jar operator/target/baton-operator.jar demo}: the demo's embedded API server and
 * Redis binaries are not in the operator's jar (they would ship in every image), so this runs the
 * demo's own jar, built beside it in a checkout, as a child process.
 */
final class DemoLauncher {

  private static final Path DEMO_JAR = Path.of("demo", "target", "baton-demo.jar");

  private DemoLauncher() {}

  static int run() throws IOException, InterruptedException {
    Path demo = find();
    if (demo == null) {
      System.err.println(
          "The demo is its own jar now: build it with ./mvnw -q -DskipTests package"
              + " and run java -jar "
              + DEMO_JAR);
      return 2;
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(List.of(java, "-jar", demo.toString())).inheritIO().start().waitFor();
  }

  /** The demo jar of the checkout this jar was built in, or of the working directory. */
  private static Path find() {
    try {
      Path self =
          Path.of(DemoLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      // operator/target/baton-operator.jar -> the checkout is three levels up.
      Path checkout = self.getParent() == null ? null : self.getParent().getParent();
      checkout = checkout == null ? null : checkout.getParent();
      for (Path base : new Path[] {checkout, Path.of("")}) {
        if (base != null && Files.isRegularFile(base.resolve(DEMO_JAR))) {
          return base.resolve(DEMO_JAR).toAbsolutePath();
        }
      }
    } catch (URISyntaxException | SecurityException e) {
      return null;
    }
    return null;
  }
}
