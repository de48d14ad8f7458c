package dev.baton.operator.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmHeapPressureMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

/**
 * The JVM's own meters, as every JVM service exports them (jvm_memory_*, jvm_gc_*, jvm_threads_*,
 * process_cpu_*, process_uptime_seconds, ...): the operator's memory is visible before the
 * container limit kills it. Closing stops the GC and heap-pressure listeners.
 */
public final class JvmMeters implements AutoCloseable {

  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final JvmHeapPressureMetrics pressure = new JvmHeapPressureMetrics();

  public JvmMeters(MeterRegistry registry) {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    pressure.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmInfoMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
  }

  @Override
  public void close() {
    gc.close();
    pressure.close();
  }
}
