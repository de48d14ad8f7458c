package dev.baton.operator.kube;

import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import java.time.Clock;

/**
 * What a controller's reporter reports through: its Event recorder (each controller keeps its own
 * aggregation), the metrics, liveness, the status writer it shares with its act step, and the clock
 * conditions are dated by.
 */
public record Reporting(
    EventRecorder events,
    BatonMetrics metrics,
    Liveness liveness,
    StatusWriter statusWriter,
    Clock clock) {}
