package dev.baton.agent.locks;

import dev.baton.agent.locks.LockService.Outcome;
import dev.baton.client.LockLease;
import dev.baton.client.LockValues;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lock API's answers that need nothing but their arguments: a grant and the validity it
 * carries, the refusals for an unknown key or pod uid, and a lock value as people read it.
 */
final class LockAnswers {

  private LockAnswers() {}

  /** Who a lock value names, for people: the pod, and the part of it that holds, if one does. */
  static String describe(String value) {
    String holder = LockValues.holder(value);
    String suffix = LockValues.parsePod(value).map(LockValues.PodRef::suffix).orElse("");
    int tilde = suffix.lastIndexOf('~');
    return tilde < 0 ? holder : holder + " (owner '" + suffix.substring(0, tilde) + "')";
  }

  static Outcome granted(String key, LockLease lease) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("key", key);
    validity(body, lease);
    body.put("atRisk", false);
    return new Outcome(200, body);
  }

  /**
   * The token, and the validity the library computed as a deadline and as the time left. The wall
   * clock is read first: the monotonic reading after it can only shorten what is left, so the
   * deadline is never later than the library's.
   */
  static void validity(Map<String, Object> body, LockLease lease) {
    Instant now = Instant.now();
    Duration left = lease.remainingValidity();
    body.put("token", lease.token());
    body.put("expiresAt", now.plus(left).truncatedTo(ChronoUnit.MILLIS).toString());
    body.put("validForMillis", left.toMillis());
  }

  static Outcome uidUnknown() {
    return error(503, "the pod's uid is not known yet: the agent has not read its pod");
  }

  static Outcome unknown(String key) {
    return error(
        404,
        "no RedisLock has the key '"
            + key
            + "' (Redis holds no token reservation for it; the Baton operator makes one for every"
            + " RedisLock as it first reconciles it, so a RedisLock created a moment ago may need"
            + " another try)");
  }

  static Outcome error(int status, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", message);
    return new Outcome(status, body);
  }
}
