package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documents name only code that exists: every name in backticks that reads as a Java type
 * ({@code LeaderGroupReconciler}, {@code GateWindow.mayRelay}) occurs in the sources of some
 * module, so a class renamed, split or deleted fails here until the prose follows it.
 */
class DocNamesTest {

  /**
   * A type name, optionally with a member: {@code Gate}, {@code Gate.closed}, {@code Gate#take()}.
   */
  private static final Pattern TYPE =
      Pattern.compile(
          "([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)(?:[.#]([a-z][A-Za-z0-9]*)(?:\\(\\))?)?");

  private static final Pattern QUOTED = Pattern.compile("`([^`\\n]+)`");

  /** Kubernetes' own words that the documents quote: an Event reason, a condition, a status. */
  private static final Set<String> KUBERNETES =
      Set.of("CreateContainerConfigError", "DeploymentPaused", "FailedCreate");

  @Test
  void everyTypeNamedInTheDocumentsIsInTheSources() throws IOException {
    Set<String> words = sourceWords();
    Set<String> missing = new TreeSet<>();
    for (Path doc : documents()) {
      Matcher quoted = QUOTED.matcher(Files.readString(doc));
      while (quoted.find()) {
        Matcher type = TYPE.matcher(quoted.group(1).trim());
        if (!type.matches()) {
          continue;
        }
        for (String name : new String[] {type.group(1), type.group(2)}) {
          if (name != null && !words.contains(name) && !KUBERNETES.contains(name)) {
            missing.add(name + " (" + InstallFiles.ROOT.relativize(doc) + ")");
          }
        }
      }
    }
    assertThat(missing).as("names in backticks that no source file has").isEmpty();
  }

  @Test
  void theSourcesWordsHoldWhatExistsAndNothingElse() throws IOException {
    // Built at run time: written out, this file would have it.
    String absent = "Gate" + "MachineThatNeverWas";
    assertThat(sourceWords()).contains("LeaderGroupReconciler", "mayRelay").doesNotContain(absent);
  }

  private static List<Path> documents() throws IOException {
    List<Path> docs = new java.util.ArrayList<>();
    for (String name : List.of("README.md", "CHANGELOG.md", "bench/README.md")) {
      Path p = InstallFiles.ROOT.resolve(name);
      if (Files.isRegularFile(p)) {
        docs.add(p);
      }
    }
    try (Stream<Path> s = Files.list(InstallFiles.ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  /** Every identifier-like word of every Java file of the repository, build output left out. */
  private static Set<String> sourceWords() throws IOException {
    Set<String> words = new HashSet<>();
    Pattern word = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    Files.walkFileTree(
        InstallFiles.ROOT,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
            return name.equals("target") || name.equals(".git") || name.equals("node_modules")
                ? FileVisitResult.SKIP_SUBTREE
                : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            if (file.toString().endsWith(".java")) {
              Matcher m = word.matcher(Files.readString(file));
              while (m.find()) {
                words.add(m.group());
              }
            }
            return FileVisitResult.CONTINUE;
          }
        });
    return words;
  }
}
