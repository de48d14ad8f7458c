package dev.baton.operator.tenancy;

import dev.baton.operator.kube.EventReason;

/**
 * Why the operator writes nothing to Redis for a resource: its key is outside its namespace, or
 * another resource holds it. Reported as {@code Invalid=True} and {@code Ready=False} with {@code
 * reason}, and an Event with {@code event}.
 *
 * @param reason the conditions' reason
 * @param event the Event's reason
 * @param message what the conditions and the Event say
 */
public record Refusal(String reason, EventReason event, String message) {

  /** The key starts with neither the resource's namespace nor a shared prefix. */
  public static final String OUTSIDE_NAMESPACE = "KeyOutsideNamespace";

  /** An older LeaderGroup or RedisLock holds the key. */
  public static final String KEY_IN_USE = "KeyInUse";
}
