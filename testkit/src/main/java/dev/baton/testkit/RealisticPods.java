package dev.baton.testkit;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.Map;

/** Pods the size of real ones: sidecars, env, volumes, managedFields and a large annotation. */
public final class RealisticPods {

  private RealisticPods() {}

  public static Pod pod(String namespace, String name, Map<String, String> labels) {
    PodBuilder b = new PodBuilder(Sandbox.readyPod(namespace, name, labels));
    b.editMetadata()
        .addToAnnotations(
            "kubectl.kubernetes.io/last-applied-configuration",
            "{\"spec\":\"" + "x".repeat(2000) + "\"}")
        .addToAnnotations("prometheus.io/scrape", "true")
        .withManagedFields(
            new ManagedFieldsEntryBuilder()
                .withManager("kube-controller-manager")
                .withOperation("Update")
                .withApiVersion("v1")
                .withFieldsType("FieldsV1")
                .build())
        .endMetadata();
    var spec = b.editSpec();
    for (String c : new String[] {"proxy", "log-shipper"}) {
      spec.addNewContainer()
          .withName(c)
          .withImage("registry.example/" + c + ":1.0")
          .addNewEnv()
          .withName("MODE")
          .withValue("sidecar")
          .endEnv()
          .addNewVolumeMount()
          .withName("data")
          .withMountPath("/data")
          .endVolumeMount()
          .endContainer();
    }
    spec.editFirstContainer()
        .addNewPort()
        .withName("http")
        .withContainerPort(8080)
        .endPort()
        .addNewEnv()
        .withName("JAVA_OPTS")
        .withValue("-Xmx512m")
        .endEnv()
        .endContainer()
        .addNewVolume()
        .withName("data")
        .withNewEmptyDir()
        .endEmptyDir()
        .endVolume()
        .withNodeName("node-1")
        .endSpec();
    return b.editStatus()
        .withPodIP("10.3.0.7")
        .withHostIP("192.168.0.4")
        .addNewContainerStatus()
        .withName("app")
        .withReady(true)
        .withRestartCount(0)
        .withImage("registry.example/app:1")
        .endContainerStatus()
        .endStatus()
        .build();
  }
}
