package dev.baton.bench.harness;

import dev.baton.demo.ClassArchiveTraining;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The class archive an operator process starts with, as the image's does (Dockerfile, "class
 * archive"): with {@code bench.classArchive=train}, one per jar measured, written on this JVM by
 * the image build's own training run; {@code none}, none; otherwise the archive at that path.
 */
final class ClassArchives {

  private static final Map<Path, Path> TRAINED = new HashMap<>();

  private ClassArchives() {}

  /** The JVM option naming the jar's archive, with a leading space, or nothing. */
  static synchronized String option(BenchConfig config, Path jar) {
    return switch (config.classArchive()) {
      case "none" -> "";
      case "train" -> " -XX:SharedArchiveFile=" + trained(config, jar);
      default -> " -XX:SharedArchiveFile=" + Path.of(config.classArchive()).toAbsolutePath();
    };
  }

  private static Path trained(BenchConfig config, Path jar) {
    Path key = jar.toAbsolutePath().normalize();
    Path archive = TRAINED.get(key);
    if (archive != null) {
      return archive;
    }
    archive = config.out().resolve("class-archive-" + TRAINED.size() + ".jsa").toAbsolutePath();
    Path log = config.out().resolve("class-archive-" + TRAINED.size() + ".log");
    Progress.line("training the class archive of " + key + " (the demo's script)");
    try {
      Files.createDirectories(config.out());
      int exit;
      try (PrintStream out =
          new PrintStream(Files.newOutputStream(log), true, StandardCharsets.UTF_8)) {
        exit = ClassArchiveTraining.train(key, archive, out);
      }
      if (exit != 0) {
        throw new IllegalStateException(
            "the class archive training of " + key + " failed (exit " + exit + "); see " + log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    TRAINED.put(key, archive);
    return archive;
  }
}
