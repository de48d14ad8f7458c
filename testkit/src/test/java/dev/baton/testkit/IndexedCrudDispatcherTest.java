package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The indexed store answers exactly as the stock one: the same script of creates, reads, patches,
 * deletes and watches gives the same observations on both, among objects that share names across
 * namespaces and resources.
 */
class IndexedCrudDispatcherTest {

  @Test
  void answersAsTheStockStoreDoes() {
    List<String> stock = run(KubernetesCrudDispatcher::new);
    List<String> indexed = run(IndexedCrudDispatcher::new);

    assertThat(indexed).isEqualTo(stock);
    // And the script observed what a Kubernetes API must answer, not two alike wrong answers.
    assertThat(indexed)
        .contains(
            "get shop/a app=one",
            "get other/a app=two",
            "get configmap shop/a {k=v}",
            "relabeled get app=three",
            "list app=three [a]",
            "list app=one []",
            "create shop/a again: 409",
            "deleted shop/b, get: null",
            "patch missing: 404",
            "group marked for deletion: true",
            "group after finalizer removed: null",
            "status observedGeneration=7")
        .anyMatch(s -> s.startsWith("watch MODIFIED a app=three"))
        .anyMatch(s -> s.startsWith("watch DELETED b"));
  }

  @Test
  void findsANamedObjectWithoutScanningTheStore() {
    IndexedCrudDispatcher store = new IndexedCrudDispatcher();
    try (EmbeddedKubernetes kube = EmbeddedKubernetes.start(store, UnaryOperator.identity())) {
      KubernetesClient c = kube.client();
      for (int i = 0; i < 20; i++) {
        c.pods().resource(pod("shop", "p-" + i, "noise")).create();
      }
      long scans = store.fullScans();
      c.pods().inNamespace("shop").withName("p-3").get();
      c.pods()
          .inNamespace("shop")
          .withName("p-4")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}");
      c.pods().inNamespace("shop").withName("p-5").delete();
      c.pods().resource(pod("shop", "p-20", "noise")).create();
      assertThat(store.fullScans()).isEqualTo(scans);

      c.pods().inNamespace("shop").withLabel("app", "noise").list();
      assertThat(store.fullScans()).isGreaterThan(scans);
    }
  }

  /**
   * As on a real API server, and unlike the stock mock: an informer's watch, which gives the
   * version its list was taken at, starts with what changed after it, not with every object again.
   */
  @Test
  void aWatchFromAVersionStartsAfterIt() {
    try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
      KubernetesClient c = kube.client();
      for (int i = 0; i < 5; i++) {
        c.pods().resource(pod("shop", "old-" + i, "noise")).create();
      }
      String listed = c.pods().inNamespace("shop").list().getMetadata().getResourceVersion();
      c.pods().resource(pod("shop", "new", "noise")).create();
      c.pods()
          .inNamespace("shop")
          .withName("old-1")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}");
      List<String> fromVersion = java.util.Collections.synchronizedList(new ArrayList<>());
      List<String> fromNow = java.util.Collections.synchronizedList(new ArrayList<>());
      try (Watch w1 =
              c.pods()
                  .inNamespace("shop")
                  .withResourceVersion(listed)
                  .watch(recorder(fromVersion));
          Watch w2 = c.pods().inNamespace("shop").watch(recorder(fromNow))) {
        c.pods().resource(pod("shop", "newer", "noise")).create();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> fromVersion.contains("ADDED newer") && fromNow.contains("ADDED newer"));
        assertThat(fromVersion).containsExactly("ADDED new", "ADDED old-1", "ADDED newer");
        assertThat(fromNow).hasSize(7).contains("ADDED old-0", "ADDED old-4", "ADDED newer");
      }
    }
  }

  private static Watcher<Pod> recorder(List<String> events) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, Pod pod) {
        events.add(action + " " + pod.getMetadata().getName());
      }

      @Override
      public void onClose(WatcherException cause) {}
    };
  }

  private static List<String> run(Supplier<KubernetesCrudDispatcher> store) {
    List<String> seen = new ArrayList<>();
    try (EmbeddedKubernetes kube =
        EmbeddedKubernetes.start(store.get(), UnaryOperator.identity())) {
      KubernetesClient c = kube.client();
      List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int i = 0; i < 50; i++) {
        c.pods().resource(pod("shop", "noise-" + i, "noise")).create();
      }
      try (Watch watch =
          c.pods()
              .inNamespace("shop")
              .watch(
                  new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, Pod pod) {
                      events.add(
                          "watch "
                              + action
                              + " "
                              + pod.getMetadata().getName()
                              + " app="
                              + pod.getMetadata().getLabels().get("app")
                              + " rv="
                              + pod.getMetadata().getResourceVersion());
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  })) {
        c.pods().resource(pod("shop", "a", "one")).create();
        c.pods().resource(pod("other", "a", "two")).create();
        c.pods().resource(pod("shop", "b", "one")).create();
        c.configMaps()
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("a")
                    .withNamespace("shop")
                    .endMetadata()
                    .withData(Map.of("k", "v"))
                    .build())
            .create();

        seen.add("get shop/a app=" + app(c.pods().inNamespace("shop").withName("a").get()));
        seen.add("get other/a app=" + app(c.pods().inNamespace("other").withName("a").get()));
        seen.add(
            "get configmap shop/a "
                + new TreeMap<>(c.configMaps().inNamespace("shop").withName("a").get().getData()));

        Pod relabeled =
            c.pods()
                .inNamespace("shop")
                .withName("a")
                .patch(
                    PatchContext.of(PatchType.JSON_MERGE),
                    "{\"metadata\":{\"labels\":{\"app\":\"three\"}}}");
        seen.add("relabeled shop/a app=" + app(relabeled) + " rv=" + version(relabeled));
        seen.add("relabeled get app=" + app(c.pods().inNamespace("shop").withName("a").get()));
        seen.add("get other/a still app=" + app(c.pods().inNamespace("other").withName("a").get()));
        seen.add("list app=three " + names(c.pods().inNamespace("shop").withLabel("app", "three")));
        seen.add(
            "list app=one "
                + names(
                    c.pods()
                        .inNamespace("shop")
                        .withLabel("app", "one")
                        .withField("metadata.name", "a")));

        try {
          c.pods().resource(pod("shop", "a", "four")).create();
          seen.add("create shop/a again: created");
        } catch (KubernetesClientException e) {
          seen.add("create shop/a again: " + e.getCode());
        }

        c.pods().inNamespace("shop").withName("b").delete();
        seen.add("deleted shop/b, get: " + c.pods().inNamespace("shop").withName("b").get());
        try {
          c.pods()
              .inNamespace("shop")
              .withName("b")
              .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{}}}");
          seen.add("patch missing: patched");
        } catch (KubernetesClientException e) {
          seen.add("patch missing: " + e.getCode());
        }
        c.pods().resource(pod("shop", "b", "five")).create();
        seen.add("recreated shop/b app=" + app(c.pods().inNamespace("shop").withName("b").get()));

        var groups =
            c.genericKubernetesResources(
                    new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
                        .withGroup("baton.dev")
                        .withVersion("v1")
                        .withKind("LeaderGroup")
                        .withPlural("leadergroups")
                        .withNamespaced(true)
                        .build())
                .inNamespace("shop");
        GenericKubernetesResource group = new GenericKubernetesResource();
        group.setApiVersion("baton.dev/v1");
        group.setKind("LeaderGroup");
        group.setMetadata(
            new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName("a")
                .withNamespace("shop")
                .withFinalizers("baton.dev/finalizer")
                .build());
        group.setAdditionalProperty("spec", Map.of("selector", Map.of("app", "three")));
        groups.resource(group).create();
        groups
            .withName("a")
            .subresource("status")
            .patch(
                PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"observedGeneration\":7}}");
        seen.add(
            "status observedGeneration="
                + ((Map<?, ?>) groups.withName("a").get().getAdditionalProperties().get("status"))
                    .get("observedGeneration"));
        groups.withName("a").delete();
        seen.add(
            "group marked for deletion: "
                + (groups.withName("a").get().getMetadata().getDeletionTimestamp() != null));
        groups
            .withName("a")
            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
        seen.add("group after finalizer removed: " + groups.withName("a").get());

        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> events.stream().anyMatch(e -> e.startsWith("watch ADDED b app=five")));
      }
      synchronized (events) {
        seen.addAll(events);
      }
    }
    return seen;
  }

  private static Pod pod(String namespace, String name, String app) {
    return Sandbox.readyPod(namespace, name, Map.of("app", app));
  }

  private static String app(HasMetadata object) {
    return object == null ? "none" : object.getMetadata().getLabels().get("app");
  }

  private static String version(HasMetadata object) {
    return object.getMetadata().getResourceVersion();
  }

  private static List<String> names(
      io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable<
              Pod, io.fabric8.kubernetes.api.model.PodList, ?>
          pods) {
    return pods.list().getItems().stream().map(p -> p.getMetadata().getName()).toList();
  }
}
