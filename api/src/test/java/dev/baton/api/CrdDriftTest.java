package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import io.fabric8.crdv2.generator.CRDGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The committed CRDs in crds/ must be exactly what the Fabric8 generator makes from the Java model,
 * finished by {@link CrdShape}. To refresh them after changing the model: {@code ./mvnw -pl api
 * test -Dtest=CrdDriftTest -Dbaton.updateCrds=true}, which writes the chart's copy in
 * helm/baton-operator/files/crds/ too (HelmCrdsTest holds it to crds/).
 */
class CrdDriftTest {

  /** Written by this test; the build puts the committed crds/ into the jar (api/pom.xml). */
  private static final Path GENERATED = Path.of("target/crds");

  private static final Path COMMITTED = Path.of("../crds");
  private static final Path CHART_COPY = Path.of("../helm/baton-operator/files/crds");

  @BeforeAll
  static void generate() throws IOException {
    Files.createDirectories(GENERATED);
    new CRDGenerator()
        .customResourceClasses(LeaderGroup.class, RedisLock.class)
        .forCRDVersions("v1")
        .withPostProcessor(new CrdShape())
        .inOutputDir(GENERATED.toFile())
        .generate();
  }

  @Test
  void committedCrdsEqualTheGeneratedOnes() throws IOException {
    List<Path> generated = crdFiles(GENERATED);
    assertThat(generated).as("CRDs generated from the model").hasSize(2);
    if (Boolean.getBoolean("baton.updateCrds")) {
      Files.createDirectories(COMMITTED);
      Files.createDirectories(CHART_COPY);
      for (Path g : generated) {
        Files.copy(g, COMMITTED.resolve(g.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(g, CHART_COPY.resolve(g.getFileName()), StandardCopyOption.REPLACE_EXISTING);
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

  private static List<Path> crdFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith("-v1.yml")).sorted().toList();
    }
  }
}
