package dev.baton.operator.redisusers;

/** The finalizer that deletes a resource's Redis user before the resource goes. */
final class RedisUserFinalizer {

  static final String NAME = "redis-users.baton.dev/finalizer";

  private RedisUserFinalizer() {}
}
