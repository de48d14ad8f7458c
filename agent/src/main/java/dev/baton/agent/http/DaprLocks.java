package dev.baton.agent.http;

import dev.baton.agent.locks.LockService;
import dev.baton.client.LockKeys;
import dev.baton.client.LockUnavailableException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Dapr's distributed lock API (v1.0-alpha1) as a thin route over the agent's locks, so that an
 * application written against a Dapr sidecar switches by changing the port it calls (docs/api.md,
 * "Drop-in routes"). The store name in the path is accepted whatever it is: the agent has one
 * store, its Redis. {@code resourceId} is a RedisLock's key, {@code lockOwner} the part of the pod
 * that holds it. Answers carry what Dapr's do, and Baton's fencing token beside them.
 */
final class DaprLocks {

  static final String LOCK = "/v1.0-alpha1/lock/";
  static final String UNLOCK = "/v1.0-alpha1/unlock/";

  /** Dapr's unlock statuses. */
  static final int SUCCESS = 0;

  static final int LOCK_DOES_NOT_EXIST = 1;
  static final int LOCK_BELONGS_TO_OTHERS = 2;
  static final int INTERNAL_ERROR = 3;

  private DaprLocks() {}

  static boolean handles(String path) {
    return (path.startsWith(LOCK) && path.length() > LOCK.length())
        || (path.startsWith(UNLOCK) && path.length() > UNLOCK.length());
  }

  /** The answer to a request on one of Dapr's lock routes. */
  static LockService.Outcome answer(
      String method, String path, String rawQuery, byte[] body, LockService locks) {
    boolean lock = path.startsWith(LOCK);
    if (!method.equals("POST")) {
      return error(405, "ERR_MALFORMED_REQUEST", "use POST");
    }
    try {
      Query q = new Query(rawQuery).withBody(body);
      if (lock) {
        q.only("resourceId", "lockOwner", "expiryInSeconds");
      } else {
        q.only("resourceId", "lockOwner");
      }
      String key = resource(q);
      String owner = AgentHttp.owner(required(q, "lockOwner"), "lockOwner");
      if (locks == null) {
        return error(500, lock ? "ERR_TRY_LOCK" : "ERR_UNLOCK", AgentHttp.noRedis().body());
      }
      return lock ? lock(locks, key, owner, expiry(q)) : unlock(locks, key, owner);
    } catch (Query.BadRequest e) {
      return error(400, "ERR_MALFORMED_REQUEST", e.getMessage());
    } catch (LockUnavailableException | org.redisson.client.RedisException e) {
      return error(
          500,
          lock ? "ERR_TRY_LOCK" : "ERR_UNLOCK",
          "Redis did not answer: " + e.getClass().getSimpleName());
    }
  }

  private static LockService.Outcome lock(
      LockService locks, String key, String owner, Duration expiry) {
    LockService.Outcome out = locks.acquire(key, owner, expiry, Duration.ZERO);
    Map<String, Object> body = new LinkedHashMap<>();
    if (out.status() == 200) {
      body.put("success", true);
      body.put("token", out.body().get("token"));
      body.put("expiresAt", out.body().get("expiresAt"));
      body.put("validForMillis", out.body().get("validForMillis"));
      return new LockService.Outcome(200, body);
    }
    if (out.status() == 409) {
      body.put("success", false);
      body.put("holder", out.body().get("holder"));
      return new LockService.Outcome(200, body);
    }
    return error(out.status() == 404 ? 400 : 500, "ERR_TRY_LOCK", out.body().get("error"));
  }

  private static LockService.Outcome unlock(LockService locks, String key, String owner) {
    LockService.Outcome out = locks.release(key, owner);
    int status;
    if (out.status() == 200) {
      status = SUCCESS;
    } else if (out.status() == 404 || (out.status() == 409 && out.body().get("holder") == null)) {
      status = LOCK_DOES_NOT_EXIST;
    } else if (out.status() == 409) {
      status = LOCK_BELONGS_TO_OTHERS;
    } else {
      status = INTERNAL_ERROR;
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", status);
    if (status != SUCCESS) {
      body.put("message", out.body().get("error"));
    }
    return new LockService.Outcome(200, body);
  }

  private static String required(Query q, String field) {
    String v = q.text(field).orElse("");
    if (v.isEmpty()) {
      throw new Query.BadRequest("field '" + field + "' is required");
    }
    return v;
  }

  private static String resource(Query q) {
    try {
      return new LockKeys(required(q, "resourceId")).key();
    } catch (IllegalArgumentException e) {
      throw new Query.BadRequest("field 'resourceId': " + e.getMessage());
    }
  }

  /** {@code expiryInSeconds}: whole seconds within a RedisLock's bounds, 1 to 3600. */
  private static Duration expiry(Query q) {
    String v = required(q, "expiryInSeconds");
    long seconds;
    try {
      seconds = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new Query.BadRequest("field 'expiryInSeconds' must be whole seconds, not " + v);
    }
    if (seconds < AgentHttp.MIN_TTL.toSeconds() || seconds > AgentHttp.MAX_TTL.toSeconds()) {
      throw new Query.BadRequest(
          "field 'expiryInSeconds' must be between 1 and 3600, as a RedisLock's ttl, not " + v);
    }
    return Duration.ofSeconds(seconds);
  }

  private static LockService.Outcome error(int status, String code, Object message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("errorCode", code);
    body.put("message", message instanceof Map<?, ?> m ? m.get("error") : message);
    return new LockService.Outcome(status, body);
  }
}
