package dev.baton.agent.kube;

import dev.baton.client.BatonLeadership;
import dev.baton.client.BatonNames;
import dev.baton.client.KubernetesApi;
import dev.baton.client.LeadershipListener;
import dev.baton.testkit.EmbeddedKubernetes;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The pod whose leadership the watch tests follow, p in namespace shop, as an application follows
 * its own: its role label and term annotation, and what its leadership tells.
 */
final class FollowedPod {

  static final String ROLE = "baton.dev/role";

  private FollowedPod() {}

  /** Creates p with this role and, unless it is null, this term. */
  static void create(EmbeddedKubernetes api, String role, String term) {
    PodBuilder pod =
        new PodBuilder().withNewMetadata().withName("p").withNamespace("shop").endMetadata();
    api.client().resource(withRole(pod, role, term).build()).create();
  }

  /** Relabels p as the operator would: this role and, unless it is null, this term. */
  static void label(EmbeddedKubernetes api, String role, String term) {
    api.client()
        .pods()
        .inNamespace("shop")
        .withName("p")
        .edit(p -> withRole(new PodBuilder(p), role, term).build());
  }

  private static PodBuilder withRole(PodBuilder b, String role, String term) {
    b.editMetadata().addToLabels(ROLE, role).endMetadata();
    if (term != null) {
      b.editMetadata().addToAnnotations(BatonNames.TERM_ANNOTATION, term).endMetadata();
    }
    return b;
  }

  /** p's leadership, learned through the pod watch and by reads {@code confirmEvery} apart. */
  static BatonLeadership follow(EmbeddedKubernetes api, Duration confirmEvery) {
    return BatonLeadership.watchingPod(
        KubernetesApi.withoutCredentials(URI.create(api.url())),
        "shop",
        "p",
        new BatonLeadership.Options(confirmEvery, confirmEvery.multipliedBy(4), false, ROLE),
        BatonLeadership.Promotion.AT_ONCE,
        facts -> {});
  }

  /** What the leadership tells from now on, in order: "granted <term>" and "revoked". */
  static List<String> heard(BatonLeadership leadership) {
    List<String> heard = new CopyOnWriteArrayList<>();
    leadership.addListener(
        new LeadershipListener() {
          @Override
          public void granted(long term) {
            heard.add("granted " + term);
          }

          @Override
          public void revoked(String reason) {
            heard.add("revoked");
          }
        });
    return heard;
  }
}
