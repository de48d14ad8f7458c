package dev.baton.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CountingKubernetesTest {

  @Test
  void requestsAreKeyedByMethodAndResource() {
    assertThat(CountingKubernetes.key("PUT", "/api/v1/namespaces/shop/pods/p-0"))
        .isEqualTo("PUT pods");
    assertThat(
            CountingKubernetes.key(
                "PATCH", "/apis/baton.dev/v1alpha1/namespaces/shop/leadergroups/g/status"))
        .isEqualTo("PATCH leadergroups/status");
    assertThat(CountingKubernetes.key("GET", "/api/v1/pods?allowWatchBookmarks=true&watch=true"))
        .isEqualTo("GET pods watch");
    assertThat(CountingKubernetes.key("POST", "/api/v1/namespaces/shop/events"))
        .isEqualTo("POST events");
    assertThat(CountingKubernetes.key("GET", "/api/v1/namespaces")).isEqualTo("GET namespaces");
  }
}
