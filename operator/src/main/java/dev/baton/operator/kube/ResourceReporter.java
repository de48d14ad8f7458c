package dev.baton.operator.kube;

import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BinaryOperator;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the two controllers' reporters share: the Event recorder, metrics, liveness, the status
 * writer and the clock, and the end of every reconcile (the status written when it changed, the
 * reservation it holds afterwards learned, liveness told when the next reconcile is due) and of
 * every resource (what was kept for it forgotten). The reporter is the one place that writes a
 * resource's status, but for one field: the reservation of terms or tokens, which {@code
 * fencing/Reservations} raises in the act step, before Redis is written (docs/design.md, "Terms and
 * tokens never repeat"); every status this class writes keeps the server's reservation if higher.
 *
 * <p>It also keeps what was told of each resource ({@link Said}), and tells the things both kinds
 * tell once: a problem, Redis lost, Redis back.
 *
 * @param <R> the custom resource
 * @param <S> its status
 * @param <X> what one kind of resource remembers having told, besides what both do
 */
public abstract class ResourceReporter<R extends CustomResource<?, S>, S, X> {

  protected final EventRecorder events;
  protected final BatonMetrics metrics;
  protected final Clock clock;
  private final Liveness liveness;
  private final StatusWriter statusWriter;
  private final BinaryOperator<S> keep;
  private final ToLongFunction<S> reserved;
  private final Logger log = LoggerFactory.getLogger(getClass());
  private final Map<ResourceID, Said<X>> said = new ConcurrentHashMap<>();
  private final Said<X> nothing;

  /**
   * @param kind the parts of the status only this kind of resource knows
   */
  protected ResourceReporter(Reporting reporting, ReportedKind<S, X> kind) {
    this.events = reporting.events();
    this.metrics = reporting.metrics();
    this.liveness = reporting.liveness();
    this.statusWriter = reporting.statusWriter();
    this.clock = reporting.clock();
    this.keep =
        (current, next) -> {
          S out = kind.keepReservation().apply(current, next);
          kind.setConditions()
              .accept(
                  out,
                  Conditions.sinceAsOnServer(
                      kind.conditions().apply(current), kind.conditions().apply(out)));
          return out;
        };
    this.reserved = kind.reserved();
    this.nothing = Said.nothing(kind.nothingOwn());
  }

  /** What was told of the resource before this reconcile. */
  protected Said<X> recall(R resource) {
    return said.getOrDefault(ResourceID.fromResource(resource), nothing);
  }

  /** Kept for the next reconcile: called once, at the end of a report. */
  protected void remember(R resource, Said<X> now) {
    said.put(ResourceID.fromResource(resource), now);
  }

  /** A problem, logged and told as an Event when it is not the one told last. */
  protected Said<X> problemOnce(R resource, Said<X> before, EventReason reason, String message) {
    if (message.equals(before.problem())) {
      return before;
    }
    log.warn("{} {}: {}", resource.getKind(), path(resource), message);
    events.record(resource, reason, message);
    return before.problem(message);
  }

  /**
   * Redis stopped answering: logged and told once per outage, until it answers again.
   *
   * @param logged the log line's message, {@code told} the Event's
   */
  protected Said<X> redisLost(
      R resource, Said<X> before, EventReason reason, String logged, String told) {
    if (before.redisDown()) {
      return before;
    }
    log.warn("{} {}: {}", resource.getKind(), path(resource), logged);
    events.record(resource, reason, told);
    return before.redisDown(true);
  }

  /** Redis answered: told back once after an outage; a problem told before may be told again. */
  protected Said<X> redisBack(R resource, Said<X> before) {
    if (before.redisDown()) {
      events.record(resource, EventReason.RedisRecovered, "Redis is reachable again");
    }
    return before.redisDown(false).problem(null);
  }

  /**
   * Writes the status when it changed, and tells liveness when this resource's next reconcile is
   * due (none: only an event wakes it).
   *
   * @return the reservation the status on the server records afterwards, 0 when the resource is
   *     gone or records none
   */
  protected long write(R resource, S next, Duration reschedule) {
    var written = statusWriter.write(resource, next, keep);
    liveness.progressed(livenessKey(resource), reschedule);
    return written == null ? 0 : reserved.applyAsLong(written.after());
  }

  /** The reconcile's answer to JOSDK: no change to the resource itself, and when to come again. */
  protected static <R extends CustomResource<?, ?>> UpdateControl<R> next(Duration reschedule) {
    UpdateControl<R> control = UpdateControl.noUpdate();
    return reschedule == null ? control : control.rescheduleAfter(reschedule);
  }

  /** The resource is gone: what was kept for it is forgotten, its series removed. */
  public void forget(R resource) {
    said.remove(ResourceID.fromResource(resource));
    statusWriter.forget(resource.getMetadata().getUid());
    liveness.forget(livenessKey(resource));
    forgetSeries(resource.getMetadata().getNamespace(), resource.getMetadata().getName());
  }

  /** Removes the resource's own metric series. */
  protected abstract void forgetSeries(String namespace, String name);

  private static String path(CustomResource<?, ?> resource) {
    return resource.getMetadata().getNamespace() + "/" + resource.getMetadata().getName();
  }

  private static String livenessKey(CustomResource<?, ?> resource) {
    return resource.getKind()
        + " "
        + resource.getMetadata().getNamespace()
        + "/"
        + resource.getMetadata().getName();
  }
}
