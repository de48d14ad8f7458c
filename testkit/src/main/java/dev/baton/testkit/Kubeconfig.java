package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A kubeconfig for an API server that checks no credentials (the embedded one), for what reaches it
 * the way a user or a pod outside the cluster would: the shipped jars, kubectl baton.
 */
public final class Kubeconfig {

  private Kubeconfig() {}

  /** Writes {@code file}: one context on {@code server}, in {@code namespace}. */
  public static Path write(Path file, String server, String namespace) {
    try {
      Files.writeString(
          file,
          """
          apiVersion: v1
          kind: Config
          clusters:
          - name: embedded
            cluster: {server: "%s"}
          contexts:
          - name: embedded
            context: {cluster: embedded, user: tester, namespace: %s}
          users:
          - name: tester
            user: {token: not-checked-by-the-mock}
          current-context: embedded
          """
              .formatted(server, namespace));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
