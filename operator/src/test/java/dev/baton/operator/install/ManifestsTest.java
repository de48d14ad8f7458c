package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The manifest reader the install tests parse with refuses what would otherwise pass silently: a
 * kind no model class knows, and a field the model does not have.
 */
class ManifestsTest {

  @Test
  void refusesAnUnknownKind() {
    String yaml =
        """
        apiVersion: baton.dev/v1alpha1
        kind: LeaderGroupp
        metadata: {name: typo}
        spec: {selector: {matchLabels: {app: x}}}
        """;

    assertThatThrownBy(() -> Manifests.parse(yaml, "test"))
        .hasMessageContaining("unknown kind baton.dev/v1alpha1/LeaderGroupp");
  }

  @Test
  void refusesAnUnknownApiVersion() {
    String yaml =
        """
        apiVersion: apps/v2
        kind: Deployment
        metadata: {name: typo}
        """;

    assertThatThrownBy(() -> Manifests.parse(yaml, "test")).hasMessageContaining("unknown kind");
  }

  @Test
  void refusesAnUnknownFieldInAKubernetesObject() {
    String yaml =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: typo}
        spec:
          replica: 3
          template:
            spec:
              containers:
              - name: app
                image: busybox
                readinessProbe: {httpGet: {path: /, prot: 8080}}
        """;

    assertThatThrownBy(() -> Manifests.parse(yaml, "test"))
        .hasMessageContaining("spec.replica")
        .hasMessageContaining("spec.template.spec.containers[0].readinessProbe.httpGet.prot");
  }

  @Test
  void refusesAnUnknownFieldInALeaderGroup() {
    String yaml =
        """
        apiVersion: baton.dev/v1alpha1
        kind: LeaderGroup
        metadata: {name: typo}
        spec:
          selector: {matchLabels: {app: x}}
          roleLable: example.com/role
        """;

    assertThatThrownBy(() -> Manifests.parse(yaml, "test")).hasMessageContaining("roleLable");
  }
}
