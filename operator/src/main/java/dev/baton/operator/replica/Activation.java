package dev.baton.operator.replica;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.controller.ResourceAction;
import io.javaoperatorsdk.operator.processing.event.source.controller.ResourceEvent;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Hands every resource to its controller when this replica becomes active. While it stands by, a
 * filter on each controller lets no event of their resources through (docs/design.md, "The
 * operator's own failover"), so once it holds the role every resource in each controller's cache is
 * handed over as an event of its own, through an event source, JOSDK's documented way to ask for a
 * reconcile. It is a resource event, as if the informer had delivered an update: JOSDK reconciles a
 * plain event only for a resource whose own events it has seen, and a standby's were all filtered
 * out.
 */
public final class Activation {

  private final List<Events<?>> sources = new CopyOnWriteArrayList<>();

  /** The event source to return from a controller's {@code prepareEventSources}. */
  public <P extends HasMetadata> Events<P> eventSource(EventSourceContext<P> context) {
    Events<P> events = new Events<>(context.getPrimaryCache());
    sources.add(events);
    return events;
  }

  /** Asks for a reconcile of every cached resource of every controller. */
  public void wakeAll() {
    sources.forEach(Events::wakeAll);
  }

  /** One controller's share: an event per resource its cache holds. */
  public static final class Events<P extends HasMetadata> extends AbstractEventSource<Void, P> {

    private final IndexerResourceCache<P> primaries;

    private Events(IndexerResourceCache<P> primaries) {
      super(Void.class, "replica-activation");
      this.primaries = primaries;
    }

    private void wakeAll() {
      if (isRunning()) {
        primaries
            .list()
            .forEach(
                p ->
                    getEventHandler()
                        .handleEvent(
                            new ResourceEvent(
                                ResourceAction.UPDATED, ResourceID.fromResource(p), p)));
      }
    }

    @Override
    public Set<Void> getSecondaryResources(P primary) {
      return Set.of();
    }
  }
}
