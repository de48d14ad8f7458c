package dev.baton.operator.pods;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;

/**
 * Whether a pod's node is lost, for one controller: a node informer whose only events that reach
 * the controller are a node turning lost (Ready False or Unknown) or back, not its heartbeats. A
 * dead kubelet never marks its pods not ready, so a leader or a lock holder on a lost node is moved
 * on this, not on the pod's own condition.
 */
public final class NodeReadiness<P extends HasMetadata> {

  private volatile InformerEventSource<Node, P> nodes;

  /** The controller's node event source; {@code affected} maps a node to what to reconcile. */
  public InformerEventSource<Node, P> eventSource(
      Class<P> primary, EventSourceContext<P> context, SecondaryToPrimaryMapper<Node> affected) {
    nodes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Node.class, primary)
                .withName("nodes")
                .withSecondaryToPrimaryMapper(affected)
                .withOnUpdateFilter((now, before) -> lost(now) != lost(before))
                .withWatchAllNamespaces()
                .build(),
            context);
    return nodes;
  }

  /** Whether the node of this name is known and lost; false before the informer started. */
  public boolean lost(String nodeName) {
    InformerEventSource<Node, P> source = nodes;
    return source != null
        && source.get(new ResourceID(nodeName)).map(NodeReadiness::lost).orElse(false);
  }

  /** A node that exists and whose Ready condition is False or Unknown. */
  public static boolean lost(Node node) {
    if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
      return false;
    }
    return node.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && !"True".equals(c.getStatus()));
  }
}
