package dev.baton.bench.scale;

import com.sun.tools.attach.VirtualMachine;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Heap in use right after a full GC, and the live thread count, of another JVM, through the attach
 * mechanism and its local JMX agent (started in that JVM by this call, so only call it after its
 * CPU has been measured).
 */
record JvmMemory(long heapUsed, long heapCommitted, long heapMax, long nonHeapUsed, int threads) {

  static JvmMemory afterGc(long pid) throws Exception {
    VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
    try {
      String address = vm.startLocalManagementAgent();
      try (JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
        MBeanServerConnection server = c.getMBeanServerConnection();
        MemoryMXBean memory =
            ManagementFactory.newPlatformMXBeanProxy(
                server, ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
        ThreadMXBean threads =
            ManagementFactory.newPlatformMXBeanProxy(
                server, ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
        memory.gc();
        var heap = memory.getHeapMemoryUsage();
        var nonHeap = memory.getNonHeapMemoryUsage();
        return new JvmMemory(
            heap.getUsed(),
            heap.getCommitted(),
            heap.getMax(),
            nonHeap.getUsed(),
            threads.getThreadCount());
      }
    } finally {
      vm.detach();
    }
  }
}
