package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfile and the chart agree: the image runs the jar as the non-root user the chart's
 * securityContext names. Building the image needs Docker and is not part of the tests.
 */
class DockerfileTest {

  @Test
  void buildsWithMavenAndRunsTheJarOnAJre() throws IOException {
    List<String> lines = instructions();
    List<String> stages = lines.stream().filter(l -> l.startsWith("FROM ")).toList();

    assertThat(stages).hasSize(3);
    assertThat(stages.get(0)).contains("maven").contains("17").endsWith(" AS build");
    assertThat(lines)
        .anyMatch(
            l ->
                l.startsWith("RUN ")
                    && l.contains("mvn -B -DskipTests -pl operator,demo,agent -am package"));
    // An archive is used only by the JVM that wrote it: the training runs on the runtime's image.
    assertThat(stages.get(1)).isEqualTo("FROM eclipse-temurin:17-jre AS class-archive");
    assertThat(stages.get(2)).isEqualTo("FROM eclipse-temurin:17-jre");
    String training =
        lines.stream()
            .filter(l -> l.startsWith("RUN java -cp /tmp/baton-demo.jar"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no training step"));
    assertThat(training)
        .startsWith(
            "RUN java -cp /tmp/baton-demo.jar dev.baton.demo.ClassArchiveTraining"
                + " /app/baton-operator.jar /app/baton-operator.jsa")
        // a failed training fails the build, and the archive must map with sharing required
        .contains(
            "&& java -Xshare:on -XX:SharedArchiveFile=/app/baton-operator.jsa -jar"
                + " /app/baton-operator.jar version")
        .doesNotContain("||")
        .doesNotContain(": >");
    assertThat(lines)
        .contains(
            "COPY --from=build /src/operator/target/baton-operator.jar /app/baton-operator.jar")
        .contains(
            "COPY --from=class-archive --chown=0:0 /app/baton-operator.jar"
                + " /app/baton-operator.jsa /app/")
        .contains(
            "COPY --chown=0:0 --chmod=0755 operator/src/main/image/baton-operator"
                + " /app/baton-operator");
    assertThat(lines)
        .contains(
            "COPY --from=class-archive --chown=0:0 /app/baton-agent.jar /app/baton-agent.jsa /app/")
        .contains("COPY --chown=0:0 --chmod=0755 agent/src/main/image/baton-agent /app/baton-agent")
        .containsSubsequence(
            "COPY --chmod=0755 agent/src/main/image/baton-agent /app/baton-agent",
            "RUN /app/baton-agent train-class-archive",
            "COPY --from=class-archive --chown=0:0 /app/baton-agent.jar /app/baton-agent.jsa /app/");
    assertThat(lines).noneMatch(l -> l.contains("JDK_JAVA_OPTIONS"));
    assertThat(lines.get(lines.size() - 1)).isEqualTo("ENTRYPOINT [\"/app/baton-operator\"]");
    assertThat(
            Files.isExecutable(InstallFiles.ROOT.resolve("operator/src/main/image/baton-operator")))
        .as("the entrypoint is executable in the repository too")
        .isTrue();
  }

  @Test
  void copiesTheOperatorTheDemoAndEveryModuleTheyDependOnIntoTheBuildContext() throws IOException {
    String rootPom = Files.readString(InstallFiles.ROOT.resolve("pom.xml"));
    String operatorPom = Files.readString(InstallFiles.ROOT.resolve("operator/pom.xml"));
    String demoPom = Files.readString(InstallFiles.ROOT.resolve("demo/pom.xml"));
    String dockerfile = Files.readString(InstallFiles.DOCKERFILE);
    String ignore = Files.readString(InstallFiles.ROOT.resolve(".dockerignore"));
    assertThat(dockerfile).contains("mvn -B -DskipTests -pl operator,demo,agent -am package");
    Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(rootPom);
    List<String> needed = new java.util.ArrayList<>();
    while (m.find()) {
      String module = m.group(1);
      String pom = Files.readString(InstallFiles.ROOT.resolve(module + "/pom.xml"));
      Matcher id = Pattern.compile("</parent>\\s*<artifactId>([^<]+)</artifactId>").matcher(pom);
      String artifact = id.find() ? "<artifactId>" + id.group(1) + "</artifactId>" : null;
      if (module.equals("operator")
          || module.equals("demo")
          || module.equals("agent")
          || artifact != null && (operatorPom.contains(artifact) || demoPom.contains(artifact))) {
        needed.add(module);
      }
    }
    assertThat(needed).contains("operator", "demo", "client", "testkit");
    for (String module : needed) {
      assertThat(dockerfile)
          .as("Dockerfile copies module %s", module)
          .contains("COPY " + module + "/pom.xml " + module + "/")
          .contains("COPY " + module + "/src " + module + "/src");
      assertThat(ignore)
          .as(".dockerignore lets module %s in", module)
          .contains("!" + module + "/pom.xml")
          .contains("!" + module + "/src");
    }
  }

  @Test
  void copiesEveryModulePomSinceMavenReadsTheWholeReactor() throws IOException {
    // A module listed in the root pom but absent from the build context fails the build with
    // "Child module ... does not exist", even when -pl leaves it out.
    String rootPom = Files.readString(InstallFiles.ROOT.resolve("pom.xml"));
    String dockerfile = Files.readString(InstallFiles.DOCKERFILE);
    String ignore = Files.readString(InstallFiles.ROOT.resolve(".dockerignore"));
    Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(rootPom);
    while (m.find()) {
      String module = m.group(1);
      assertThat(dockerfile)
          .as("Dockerfile copies the pom of module %s", module)
          .contains("COPY " + module + "/pom.xml " + module + "/");
      assertThat(ignore)
          .as(".dockerignore lets %s/pom.xml in", module)
          .contains("!" + module + "/pom.xml");
    }
  }

  @Test
  void runsAsTheNumericNonRootUserOfTheChart() throws IOException {
    List<String> users =
        instructions().stream().filter(l -> l.startsWith("USER ")).collect(Collectors.toList());
    assertThat(users).hasSize(1);
    Matcher user = Pattern.compile("USER (\\d+):(\\d+)").matcher(users.get(0));
    assertThat(user.matches()).as("numeric USER uid:gid, got %s", users.get(0)).isTrue();

    JsonNode pod =
        Manifests.documents(
                Files.readString(InstallFiles.CHART.resolve("values.yaml")), "values.yaml")
            .get(0)
            .path("podSecurityContext");
    assertThat(Integer.parseInt(user.group(1)))
        .isPositive()
        .isEqualTo(pod.path("runAsUser").asInt());
    assertThat(Integer.parseInt(user.group(2))).isEqualTo(pod.path("runAsGroup").asInt());
  }

  @Test
  void chartDocumentsTheImageJvmOptions() throws IOException {
    Matcher env =
        Pattern.compile("ENV BATON_JVM_OPTIONS=\"([^\"]+)\"")
            .matcher(String.join("\n", instructions()));
    assertThat(env.find()).as("the Dockerfile sets BATON_JVM_OPTIONS").isTrue();
    assertThat(env.group(1)).contains("MaxRAMPercentage");

    String values = Files.readString(InstallFiles.CHART.resolve("values.yaml"));
    assertThat(values.replaceAll("\\s*#\\s*", " "))
        .as("values.yaml documents the image's JVM options next to jvmOptions")
        .contains(env.group(1));
  }

  /**
   * The Dockerfile's instructions, one a line, with continuation lines joined and comments gone.
   */
  private static List<String> instructions() throws IOException {
    String text = Files.readString(InstallFiles.DOCKERFILE).replaceAll("\\s*\\\\\\n\\s*", " ");
    return text.lines()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .collect(Collectors.toList());
  }
}
