package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.pods.PodLabeler;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What groups leave behind that no reconcile of theirs undoes: the finalizer releases before 0.2
 * put on every group, and the marks on pods of groups deleted while no replica was active.
 */
record GroupLeftovers(KubernetesClient client, PodLabeler labeler, GroupEventSources sources) {

  private static final Logger log = LoggerFactory.getLogger(GroupLeftovers.class);

  /**
   * Clears the marks that groups deleted while no replica was active left on pods. A deletion seen
   * while active is cleaned up by its own reconcile; this runs when a replica becomes active.
   */
  void clearOrphans() {
    Map<ResourceID, List<Pod>> byGroup = new HashMap<>();
    for (Pod pod : sources.orphans()) {
      byGroup
          .computeIfAbsent(
              new ResourceID(
                  Metadata.annotation(pod, BatonNames.GROUP_ANNOTATION),
                  pod.getMetadata().getNamespace()),
              k -> new ArrayList<>())
          .add(pod);
    }
    byGroup.forEach(
        (id, pods) -> {
          // The cache may not show a group created a moment ago: the API server decides.
          String ns = id.getNamespace().orElseThrow();
          if (client.resources(LeaderGroup.class).inNamespace(ns).withName(id.getName()).get()
              != null) {
            return;
          }
          pods.forEach(p -> labeler.clear(p, PodLabeler.roleLabelOf(p)));
          log.info(
              "LeaderGroup {}/{} was deleted while no replica was active; cleared its marks from"
                  + " {} pods",
              ns,
              id.getName(),
              pods.size());
        });
  }

  /**
   * Removes {@link LeaderGroupReconciler#LEGACY_FINALIZER} wherever it is still found, so that no
   * group is left stuck in deletion once the operator is gone.
   */
  void removeLegacyFinalizer(LeaderGroup group) {
    String legacy = LeaderGroupReconciler.LEGACY_FINALIZER;
    List<String> finalizers = group.getMetadata().getFinalizers();
    if (finalizers == null || !finalizers.contains(legacy)) {
      return;
    }
    int at = finalizers.indexOf(legacy);
    // The test makes the removal of entry `at` safe against a list that changed since.
    String patch =
        "[{\"op\":\"test\",\"path\":\"/metadata/finalizers/"
            + at
            + "\",\"value\":\""
            + legacy
            + "\"},{\"op\":\"remove\",\"path\":\"/metadata/finalizers/"
            + at
            + "\"}]";
    try {
      client.resource(group).patch(PatchContext.of(PatchType.JSON), patch);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }
}
