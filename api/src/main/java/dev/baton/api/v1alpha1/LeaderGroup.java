package dev.baton.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A leader election among the pods a label selector picks, run in Redis, shown as pod labels. */
@Group("baton.dev")
@Version("v1alpha1")
@Plural("leadergroups")
@ShortNames("lg")
@AdditionalPrinterColumn(
    name = "READY",
    jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class LeaderGroup extends CustomResource<LeaderGroupSpec, LeaderGroupStatus>
    implements Namespaced {

  @Override
  protected LeaderGroupStatus initStatus() {
    return new LeaderGroupStatus();
  }
}
