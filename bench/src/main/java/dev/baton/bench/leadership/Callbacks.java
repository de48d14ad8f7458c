package dev.baton.bench.leadership;

import dev.baton.client.LeadershipListener;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Every application's callbacks, and who believes it leads. */
final class Callbacks {

  private final Map<String, Long> grantedAt = new ConcurrentHashMap<>();
  private final Map<String, Long> revokedAt = new ConcurrentHashMap<>();
  private final Map<String, Boolean> believing = new LinkedHashMap<>();
  private int twoBelievers;

  LeadershipListener listenerFor(String pod) {
    return new LeadershipListener() {
      @Override
      public void granted(long term) {
        long now = System.nanoTime();
        synchronized (Callbacks.this) {
          if (!believing.isEmpty()) {
            twoBelievers++;
          }
          believing.put(pod, true);
        }
        grantedAt.put(pod, now);
      }

      @Override
      public void revoked(String reason) {
        long now = System.nanoTime();
        synchronized (Callbacks.this) {
          believing.remove(pod);
        }
        revokedAt.put(pod, now);
      }
    };
  }

  synchronized String believer() {
    return believing.size() == 1 ? believing.keySet().iterator().next() : null;
  }

  boolean revokedAfter(String pod, long start) {
    Long at = revokedAt.get(pod);
    return at != null && at - start > 0;
  }

  long grantedAt(String pod) {
    return grantedAt.get(pod);
  }

  long revokedAt(String pod) {
    return revokedAt.get(pod);
  }

  synchronized int twoBelievers() {
    return twoBelievers;
  }
}
