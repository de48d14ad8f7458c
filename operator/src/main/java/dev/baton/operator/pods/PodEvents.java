package dev.baton.operator.pods;

import dev.baton.operator.metrics.FailoverTrace;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.health.Status;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * One controller's share of the {@link PodCatalog}: each pod event, mapped to the primaries it
 * concerns, becomes a reconcile of each. Starting it waits for the catalog's first listing, as an
 * informer event source would.
 */
public final class PodEvents<P extends HasMetadata> extends AbstractEventSource<Pod, P>
    implements ResourceEventHandler<Pod> {

  private final PodCatalog catalog;
  private final Function<Pod, Set<ResourceID>> primaries;

  public PodEvents(String name, PodCatalog catalog, Function<Pod, Set<ResourceID>> primaries) {
    super(Pod.class, name);
    this.catalog = catalog;
    this.primaries = primaries;
    catalog.addListener(this);
  }

  /**
   * Waits for the catalog's first listing for as long as it takes, as JOSDK's informers do in this
   * operator: a list the server refuses is listed again (the catalog's informers retry every
   * failure but a pod they cannot decode), and a group must never be reconciled against pods not
   * listed yet, which would look like a group without candidates.
   */
  @Override
  public void start() throws OperatorException {
    try {
      catalog.start().get();
    } catch (ExecutionException e) {
      throw new OperatorException("could not list pods: " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OperatorException("interrupted while listing pods", e);
    }
    super.start();
  }

  @Override
  public void onAdd(Pod pod) {
    fire(pod);
  }

  /** Only updates that change what the operator reads get here (the catalog filters them). */
  @Override
  public void onUpdate(Pod before, Pod now) {
    if (isRunning()) {
      // Both: a pod relabeled out of a group concerns the group it left.
      Set<ResourceID> ids = new HashSet<>(primaries.apply(before));
      ids.addAll(primaries.apply(now));
      ids.forEach(id -> handle(id, now));
    }
  }

  @Override
  public void onDelete(Pod pod, boolean finalStateUnknown) {
    fire(pod);
  }

  private void fire(Pod pod) {
    if (!isRunning()) {
      return;
    }
    for (ResourceID id : primaries.apply(pod)) {
      handle(id, pod);
    }
  }

  private void handle(ResourceID id, Pod pod) {
    FailoverTrace.stamp(
        FailoverTrace.Step.POD_EVENT,
        id.getNamespace().orElse(""),
        id.getName(),
        pod.getMetadata().getName());
    getEventHandler().handleEvent(new Event(id));
  }

  @Override
  public Set<Pod> getSecondaryResources(P primary) {
    return Set.of();
  }

  @Override
  public Status getStatus() {
    return catalog.watching() ? Status.HEALTHY : Status.UNHEALTHY;
  }
}
