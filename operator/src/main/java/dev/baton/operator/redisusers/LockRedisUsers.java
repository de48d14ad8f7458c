package dev.baton.operator.redisusers;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.BatonNames;
import dev.baton.operator.ControllerKit;
import dev.baton.operator.tenancy.KeyClaims;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;

/**
 * A RedisLock's Redis user for the agents and applications that take it, when the operator runs
 * with per-group users. A Redlock quorum gets none (its instances are Redis servers of the user's
 * own, with users of their own).
 */
@ControllerConfiguration(
    name = "redislock-redis-users",
    finalizerName = RedisUserFinalizer.NAME,
    generationAwareEventProcessing = false)
public class LockRedisUsers implements Reconciler<RedisLock>, Cleaner<RedisLock> {

  private final RedisUsers users;

  public LockRedisUsers(ControllerKit kit, Duration redisTimeout) {
    this.users = new RedisUsers(kit, redisTimeout);
  }

  @Override
  public UpdateControl<RedisLock> reconcile(RedisLock lock, Context<RedisLock> context) {
    return users.reconcile(() -> redlock(lock) ? null : subject(lock));
  }

  @Override
  public DeleteControl cleanup(RedisLock lock, Context<RedisLock> context) {
    return users.cleanup(() -> redlock(lock) ? null : subject(lock));
  }

  private static boolean redlock(RedisLock lock) {
    return lock.getSpec() != null && lock.getSpec().getRedlock() != null;
  }

  static RedisUsers.Subject subject(RedisLock l) {
    String ns = l.getMetadata().getNamespace();
    String name = l.getMetadata().getName();
    return new RedisUsers.Subject(
        l,
        AclRules.lockUser(ns, name),
        BatonNames.redisLockUserSecret(name),
        AclRules.lock(KeyClaims.keyOf(l)),
        l.getSpec() == null ? null : l.getSpec().getRedis(),
        l.getStatus() == null ? null : l.getStatus().getConditions());
  }
}
