package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.lease.LeaseRenewer;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import java.util.Set;

/** Turns what the lease renewer hears from Redis (lost, unreachable, back) into reconciles. */
final class LeaseEventSource extends AbstractEventSource<Void, LeaderGroup> {

  LeaseEventSource() {
    super(Void.class, "leases");
  }

  void onLease(LeaseRenewer.Event<ResourceID> event) {
    if (isRunning()) {
      getEventHandler().handleEvent(new Event(event.owner()));
    }
  }

  @Override
  public Set<Void> getSecondaryResources(LeaderGroup primary) {
    return Set.of();
  }
}
