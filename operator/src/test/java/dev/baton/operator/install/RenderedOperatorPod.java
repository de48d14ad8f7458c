package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The operator's pod as the chart renders it, read for the chart tests: its one container, its env,
 * where its secrets come from, and the restricted security every rendering must keep.
 */
final class RenderedOperatorPod {

  private RenderedOperatorPod() {}

  static void assertRestrictedSecurity(PodSpec pod, Container container) {
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    var security = container.getSecurityContext();
    assertThat(security.getRunAsNonRoot()).isTrue();
    assertThat(security.getReadOnlyRootFilesystem()).isTrue();
    assertThat(security.getAllowPrivilegeEscalation()).isFalse();
    assertThat(security.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(security.getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(security.getPrivileged()).isNotEqualTo(Boolean.TRUE);
    assertThat(security.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");

    assertThat(container.getVolumeMounts())
        .filteredOn(m -> m.getMountPath().equals("/tmp"))
        .singleElement()
        .satisfies(
            m -> {
              Volume volume =
                  pod.getVolumes().stream()
                      .filter(v -> v.getName().equals(m.getName()))
                      .findFirst()
                      .orElseThrow();
              assertThat(volume.getEmptyDir()).as("/tmp is an emptyDir").isNotNull();
            });
    assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
    assertThat(pod.getHostPID()).isNotEqualTo(Boolean.TRUE);
  }

  static void assertSecretKey(EnvVar var, String secret, String key, Boolean optional) {
    assertThat(var).as("env var").isNotNull();
    assertThat(var.getValue()).as("%s must not hold a value", var.getName()).isNull();
    var ref = var.getValueFrom().getSecretKeyRef();
    assertThat(ref.getName()).isEqualTo(secret);
    assertThat(ref.getKey()).isEqualTo(key);
    assertThat(ref.getOptional()).isEqualTo(optional);
  }

  static Container onlyContainer(PodSpec pod) {
    assertThat(pod.getContainers()).hasSize(1);
    assertThat(pod.getInitContainers()).isNullOrEmpty();
    return pod.getContainers().get(0);
  }

  static Map<String, EnvVar> env(Container container) {
    assertThat(container.getEnv())
        .extracting(EnvVar::getName)
        .as("env var names are unique")
        .doesNotHaveDuplicates();
    return container.getEnv().stream()
        .collect(Collectors.toMap(EnvVar::getName, Function.identity()));
  }

  static Map<String, String> values(Map<String, EnvVar> env) {
    return env.values().stream()
        .filter(v -> v.getValue() != null)
        .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
  }

  static Map<String, String> podLabels(Deployment deployment) {
    return deployment.getSpec().getTemplate().getMetadata().getLabels();
  }
}
