package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed CRDs in crds/ must be exactly what the Fabric8 generator makes from the Java model
 * in this build. To refresh them (and the Helm chart's copy) after changing the model: {@code
 * ./mvnw -pl api test -Dtest=CrdDriftTest -Dbaton.updateCrds=true}.
 */
class CrdDriftTest {

  private static final Path GENERATED = Path.of("target/classes/META-INF/fabric8");
  private static final Path COMMITTED = Path.of("../crds");
  private static final Path CHART_COPY = Path.of("../helm/baton-operator/crds");

  @Test
  void committedCrdsEqualTheGeneratedOnes() throws IOException {
    List<Path> generated;
    try (Stream<Path> files = Files.list(GENERATED)) {
      generated = files.filter(f -> f.toString().endsWith("-v1.yml")).sorted().toList();
    }
    assertThat(generated).as("CRDs generated from the model").isNotEmpty();
    if (Boolean.getBoolean("baton.updateCrds")) {
      Files.createDirectories(COMMITTED);
      for (Path g : generated) {
        Files.copy(
            g,
            COMMITTED.resolve(g.getFileName()),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
    for (Path g : generated) {
      Path committed = COMMITTED.resolve(g.getFileName());
      assertThat(committed).as("%s is committed in crds/", g.getFileName()).exists();
      assertThat(Files.readString(committed))
          .as(
              "crds/%s drifted from the Java model; refresh it with"
                  + " ./mvnw -pl api test -Dtest=CrdDriftTest -Dbaton.updateCrds=true",
              g.getFileName())
          .isEqualTo(Files.readString(g));
    }
    try (Stream<Path> files = Files.list(COMMITTED)) {
      assertThat(files.map(f -> f.getFileName().toString()).sorted())
          .as("no CRD in crds/ without a model class")
          .containsExactlyElementsOf(
              generated.stream().map(f -> f.getFileName().toString()).toList());
    }
  }
}
