package dev.baton.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.RealisticPods;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The two forms of a pod in the store, and when a pod moves from one to the other. */
class PodStoreTest {

  private static Pod pod(String name, Map<String, String> labels, String rv) {
    return new PodBuilder(RealisticPods.pod("shop", name, labels))
        .editMetadata()
        .withUid("uid-" + name)
        .withResourceVersion(rv)
        .withCreationTimestamp("2026-11-30T09:00:00Z")
        .endMetadata()
        .build();
  }

  private static PodStore storeWanting(String app) {
    PodStore store = PodStore.standalone();
    store.addInterest(p -> app.equals(p.getMetadata().getLabels().get("app")));
    return store;
  }

  private static Set<String> names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
  }

  @Test
  void aCompactPodGivesBackTheSameSkeleton() {
    Pod full =
        new PodBuilder(pod("payments-0", Map.of("app", "payments", "tier", "web"), "7"))
            .editMetadata()
            .addToAnnotations("baton.dev/term", "4")
            .addToAnnotations("controller.kubernetes.io/pod-deletion-cost", "100")
            .withDeletionTimestamp("2026-11-30T10:00:00Z")
            .endMetadata()
            .build();
    Pod skeleton = PodSkeleton.of(full);
    assertThat(CompactPod.of(skeleton).toPod("shop", "payments-0")).isEqualTo(skeleton);
    // A pod with annotations but none of ours, and a bare one, keep their difference.
    Pod bare = Sandbox.readyPod("shop", "a", Map.of("app", "x"));
    Pod other =
        new PodBuilder(bare).editMetadata().addToAnnotations("team", "blue").endMetadata().build();
    for (Pod p : List.of(bare, other)) {
      Pod s = PodSkeleton.of(p);
      assertThat(CompactPod.of(s).toPod("shop", "a")).isEqualTo(s);
    }
  }

  @Test
  void packedFieldsComeBackAsTheSameTextAndOddOnesStayText() {
    for (String uid : new String[] {"0b6e2f7c-5d1a-4c1e-9f3a-2a7d9c1e4b55", "not-a-uuid", null}) {
      assertThat(Packed.text(Packed.uuid(uid))).isEqualTo(uid);
    }
    // Upper case would not come back the same from a UUID: kept as text.
    assertThat(Packed.uuid("0B6E2F7C-5D1A-4C1E-9F3A-2A7D9C1E4B55")).isInstanceOf(String.class);
    for (String rv : new String[] {"123456", "007", "", "12a", "99999999999999999999"}) {
      assertThat(Packed.text(Packed.number(rv))).isEqualTo(rv);
    }
    assertThat(Packed.number("007")).isInstanceOf(String.class);
    for (String t :
        new String[] {"2026-11-30T09:00:00Z", "2026-11-30T09:00:00.500Z", "2026-11-30T09:00Z"}) {
      assertThat(Packed.text(Packed.instant(t))).isEqualTo(t);
    }
    for (String ip : new String[] {"10.3.0.7", "255.255.255.255", "0.0.0.0", "fd00::1", "1.2.3"}) {
      assertThat(Packed.text(Packed.ipv4(ip))).isEqualTo(ip);
    }
    assertThat(Packed.ipv4("10.3.0.7")).isInstanceOf(Integer.class);
    assertThat(Packed.ipv4("010.3.0.7")).isInstanceOf(String.class);
  }

  @Test
  void onlyPodsSomeoneWantsOrBatonMarkedAreWhole() {
    PodStore store = storeWanting("payments");
    store.put("shop/payments-0", pod("payments-0", Map.of("app", "payments"), "1"));
    store.put("shop/web-0", pod("web-0", Map.of("app", "web"), "1"));
    Pod marked =
        new PodBuilder(pod("web-1", Map.of("app", "web"), "1"))
            .editMetadata()
            .addToAnnotations("baton.dev/leader-group", "old")
            .endMetadata()
            .build();
    store.put("shop/web-1", marked);

    assertThat(store.find("shop", "payments-0")).isPresent();
    assertThat(store.find("shop", "web-0")).isEmpty();
    assertThat(store.get("shop/web-0")).isNull();
    assertThat(names(store.inNamespace("shop").toList())).containsOnly("payments-0", "web-1");
    assertThat(names(store.labeledBy("shop", "old"))).containsOnly("web-1");
    assertThat(names(store.withLabel("shop", "app", "web"))).containsOnly("web-1");
    assertThat(store.wholeCount()).isEqualTo(2);
    assertThat(store.compactCount()).isEqualTo(1);
    // To the informer every pod is there: its relist and its deletions see them all.
    assertThat(store.keySet()).containsOnly("shop/payments-0", "shop/web-0", "shop/web-1");
    assertThat(store.values().map(p -> p.getMetadata().getName()))
        .containsOnly("payments-0", "web-0", "web-1");
    assertThat(store.size()).isEqualTo(3);
    // Whether a lock's holder still exists is known for every pod.
    assertThat(store.uidOf("shop", "web-0")).contains("uid-web-0");
    assertThat(store.uidOf("shop", "payments-0")).contains("uid-payments-0");
    assertThat(store.uidOf("shop", "gone")).isEmpty();
  }

  @Test
  void aCompactPodIsReturnedWholeOnItsNextEventAndOnItsDeletion() {
    PodStore store = storeWanting("payments");
    Pod first = pod("web-0", Map.of("app", "web"), "1");
    store.put("shop/web-0", first);
    // The informer tells apart an update from an add, and announces a deletion, by these.
    Pod previous = store.put("shop/web-0", pod("web-0", Map.of("app", "web"), "2"));
    assertThat(previous).isEqualTo(PodSkeleton.of(first));
    Pod removed = store.remove("shop/web-0");
    assertThat(removed.getMetadata().getResourceVersion()).isEqualTo("2");
    assertThat(removed.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(store.size()).isZero();
  }

  @Test
  void aPodRelabeledIntoInterestIsWholeAndOutOfItIsCompactWithItsIndexEntriesGone() {
    PodStore store = storeWanting("payments");
    store.put("shop/p", pod("p", Map.of("app", "web"), "1"));
    assertThat(store.find("shop", "p")).isEmpty();

    store.put("shop/p", pod("p", Map.of("app", "payments", "tier", "a"), "2"));
    assertThat(names(store.withLabel("shop", "app", "payments"))).containsOnly("p");
    assertThat(names(store.withLabel("shop", "tier", "a"))).containsOnly("p");

    // Still whole, one label changed: the old entry goes, the others stay.
    store.put("shop/p", pod("p", Map.of("app", "payments", "tier", "b"), "3"));
    assertThat(store.withLabel("shop", "tier", "a")).isEmpty();
    assertThat(names(store.withLabel("shop", "tier", "b"))).containsOnly("p");

    store.put("shop/p", pod("p", Map.of("app", "web"), "4"));
    assertThat(store.find("shop", "p")).isEmpty();
    assertThat(store.withLabel("shop", "app", "payments")).isEmpty();
    assertThat(store.withLabel("shop", "tier", "b")).isEmpty();
    assertThat(store.compactCount()).isEqualTo(1);
  }

  @Test
  void reconsideringMakesWholeThePodsANewSelectorMatchesAndNoOthers() {
    PodStore store = storeWanting("nothing-yet");
    Pod early = pod("orders-0", Map.of("app", "orders", "tier", "db"), "5");
    store.put("shop/orders-0", early);
    store.put("shop/orders-1", pod("orders-1", Map.of("app", "orders", "tier", "web"), "5"));
    store.put("shop/web-0", pod("web-0", Map.of("app", "web"), "5"));
    assertThat(store.wholeCount()).isZero();

    int promoted =
        store.reconsider(
            "shop", labels -> "orders".equals(labels.get("app")) && labels.containsKey("tier"));

    assertThat(promoted).isEqualTo(2);
    assertThat(names(store.withLabel("shop", "app", "orders")))
        .containsOnly("orders-0", "orders-1");
    // Whole again: readiness, IP and node as the informer last saw them.
    assertThat(store.find("shop", "orders-0")).contains(PodSkeleton.of(early));
    assertThat(store.find("shop", "web-0")).isEmpty();
    assertThat(store.reconsider("other-namespace", labels -> true)).isZero();
  }
}
