package dev.baton.agent.leadership;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A 64-bit fingerprint of a canonical world, so that the search keeps eight bytes per world it has
 * seen instead of the world (hash compaction, as SPIN does): two different worlds share one with a
 * chance of about n²/2⁶⁵, under a millionth for the worlds a run explores, and such a clash could
 * only skip a world, never report a false counterexample.
 */
final class GateModelFingerprint {

  private GateModelFingerprint() {}

  private static final Map<Class<?>, MethodHandle[]> ACCESSORS = new ConcurrentHashMap<>();

  static long of(Object o) {
    if (o == null) {
      return 0x5bd1e995L;
    }
    if (o instanceof String s) {
      long h = 0xcbf29ce484222325L;
      for (int i = 0; i < s.length(); i++) {
        h = (h ^ s.charAt(i)) * 0x100000001b3L;
      }
      return mix(h ^ s.length());
    }
    if (o instanceof Long l) {
      return mix(l);
    }
    if (o instanceof Integer i) {
      return mix(i + 0x1000L);
    }
    if (o instanceof Boolean b) {
      return b ? 0x7f4a7c15L : 0x2545f491L;
    }
    if (o instanceof Character c) {
      return mix(c + 0x20000L);
    }
    if (o instanceof List<?> l) {
      long h = 0x3c6ef372L;
      for (Object x : l) {
        h = mix(h * 31 + of(x));
      }
      return h;
    }
    if (o instanceof Map<?, ?> m) {
      long h = 0xa54ff53aL;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        h += mix(of(e.getKey()) * 0x9e3779b97f4a7c15L + of(e.getValue()));
      }
      return mix(h);
    }
    if (o instanceof Record r) {
      long h = of(r.getClass().getName());
      for (MethodHandle m : accessors(r.getClass())) {
        try {
          h = mix(h * 31 + of((Object) m.invokeExact((Object) r)));
        } catch (Throwable e) {
          throw new IllegalStateException(e);
        }
      }
      return h;
    }
    throw new IllegalArgumentException("no fingerprint for " + o.getClass());
  }

  private static MethodHandle[] accessors(Class<?> type) {
    return ACCESSORS.computeIfAbsent(
        type,
        t -> {
          RecordComponent[] cs = t.getRecordComponents();
          MethodHandle[] ms = new MethodHandle[cs.length];
          for (int i = 0; i < cs.length; i++) {
            Method m = cs[i].getAccessor();
            m.setAccessible(true);
            try {
              ms[i] =
                  MethodHandles.lookup()
                      .unreflect(m)
                      .asType(MethodType.methodType(Object.class, Object.class));
            } catch (IllegalAccessException e) {
              throw new IllegalStateException(e);
            }
          }
          return ms;
        });
  }

  private static long mix(long x) {
    x ^= x >>> 33;
    x *= 0xff51afd7ed558ccdL;
    x ^= x >>> 33;
    x *= 0xc4ceb9fe1a85ec53L;
    x ^= x >>> 33;
    return x;
  }
}
