package dev.baton.operator.testing;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;

/** Builds and changes pods the way a kubelet would report them. */
public final class Pods {

  private Pods() {}

  public static Pod ready(String namespace, String name, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("app")
        .withImage("registry.example/app:1")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withConditions(readyCondition(true))
        .endStatus()
        .build();
  }

  public static PodCondition readyCondition(boolean ready) {
    return new PodConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False").build();
  }

  public static void setReady(KubernetesClient client, String namespace, String name,
      boolean ready) {
    client.pods().inNamespace(namespace).withName(name).editStatus(p -> {
      p.getStatus().setConditions(List.of(readyCondition(ready)));
      return p;
    });
  }
}
