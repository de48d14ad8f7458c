package dev.baton.agent;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import dev.baton.agent.threads.AgentThreads;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What keeps a plain {@code java -jar baton-agent.jar} small without JVM options. Each setting
 * applies only where neither a system property nor a JVM option set it already, so the image's
 * options and an operator's own win.
 */
final class Lean {

  private static final Logger log = LoggerFactory.getLogger(Lean.class);
  static final long TRIM_EVERY_SECONDS = 60;

  private Lean() {}

  /**
   * Before Netty or Redisson load: Netty's defaults are for servers, not for a few calls a second.
   */
  static void properties() {
    // Netty 4.2 registers JFR events when JFR is there: about a hundred JFR classes and generated
    // event handlers, for events nobody records.
    setIfAbsent("io.netty.jfr.enabled", "false");
    // The adaptive pool keeps chunks per thread for throughput the agent never needs: a few small
    // Redis calls a second allocate and free their buffers directly.
    setIfAbsent("io.netty.allocator.type", "unpooled");
  }

  /**
   * The heap gives back what it does not use: the JVM's defaults keep up to 70% of the heap free
   * and committed (on a large node the heap starts at 1/64 of its memory). With G1, a concurrent
   * cycle every 30 s while idle gives it the chance to. Then, every minute, the C heap returns the
   * pages that startup's compilers and class loading freed (glibc keeps them).
   */
  static void heap(AgentThreads threads) {
    try {
      HotSpotDiagnosticMXBean vm =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      // Min first: the JVM refuses a Max below the current Min.
      setIfDefault(vm, "MinHeapFreeRatio", "10");
      setIfDefault(vm, "MaxHeapFreeRatio", "20");
      if ("true".equals(vm.getVMOption("UseG1GC").getValue())) {
        setIfDefault(vm, "G1PeriodicGCInterval", "30000");
      }
    } catch (RuntimeException e) {
      log.debug("heap settings not applied: {}", e.toString());
    }
    ScheduledExecutorService trim = threads.single("baton-agent-trim");
    trim.scheduleWithFixedDelay(
        () -> trimNativeHeap(trim), TRIM_EVERY_SECONDS, TRIM_EVERY_SECONDS, TimeUnit.SECONDS);
  }

  private static void trimNativeHeap(ScheduledExecutorService self) {
    try {
      ManagementFactory.getPlatformMBeanServer()
          .invoke(
              new ObjectName("com.sun.management:type=DiagnosticCommand"),
              "systemTrimNativeHeap",
              new Object[] {new String[0]},
              new String[] {String[].class.getName()});
    } catch (Exception e) {
      // A JVM without the command (or without glibc): nothing to trim, and nothing to retry.
      log.debug("native heap not trimmed: {}", e.toString());
      self.shutdown();
    }
  }

  private static void setIfAbsent(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }

  private static void setIfDefault(HotSpotDiagnosticMXBean vm, String flag, String value) {
    VMOption o = vm.getVMOption(flag);
    if (o.getOrigin() == VMOption.Origin.DEFAULT || o.getOrigin() == VMOption.Origin.ERGONOMIC) {
      vm.setVMOption(flag, value);
    }
  }
}
