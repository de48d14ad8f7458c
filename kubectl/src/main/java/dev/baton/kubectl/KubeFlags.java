package dev.baton.kubectl;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * kubectl's own flags, which every command takes wherever they stand on the line: which kubeconfig,
 * which context, which namespace, and whom to act as. The cluster is opened from them as kubectl
 * would: the files of KUBECONFIG (or ~/.kube/config), their current context unless one is named.
 */
final class KubeFlags {

  String kubeconfig;
  String context;
  String namespace;
  String as;
  final List<String> asGroups = new ArrayList<>();

  /** A client of the cluster these flags name; throws {@link Refused} for a context not there. */
  KubernetesClient open() {
    if (context != null && !contexts().contains(context)) {
      throw new Refused("context \"" + context + "\" does not exist");
    }
    Config config =
        kubeconfig != null
            ? Config.fromKubeconfig(context, new File(kubeconfig))
            : Config.autoConfigure(context);
    // A plain-HTTP server is spoken to in HTTP/1.1, as kubectl does: the JDK's h2c upgrade costs a
    // round trip, and its upgraded first request loses repeated headers such as Impersonate-Group.
    if (config.getMasterUrl() != null && config.getMasterUrl().startsWith("http://")) {
      config.setHttp2Disable(true);
    }
    // A person waits at the terminal: a refused connection is said at once, as kubectl says it,
    // not after Fabric8's ten retries with backoff (about 20 s).
    config.setRequestRetryBackoffLimit(0);
    if (as != null) {
      config.setImpersonateUsername(as);
    }
    if (!asGroups.isEmpty()) {
      config.setImpersonateGroups(asGroups.toArray(String[]::new));
    }
    // No scan of the class path for every Kubernetes kind: the plugin asks for typed objects only,
    // and the scan is a third of a second before the first request.
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withKubernetesSerialization(new KubernetesSerialization(new ObjectMapper(), false))
        .build();
  }

  /** The context names of the kubeconfig files these flags read, for checks and completion. */
  List<String> contexts() {
    List<String> names = new ArrayList<>();
    for (File file : files()) {
      if (file.isFile()) {
        io.fabric8.kubernetes.api.model.Config parsed = KubeConfigUtils.parseConfig(file);
        if (parsed.getContexts() != null) {
          parsed.getContexts().stream()
              .map(NamedContext::getName)
              .filter(Objects::nonNull)
              .forEach(names::add);
        }
      }
    }
    return names;
  }

  private List<File> files() {
    if (kubeconfig != null) {
      return List.of(new File(kubeconfig));
    }
    return Config.getKubeconfigFilenames().stream().map(File::new).toList();
  }
}
