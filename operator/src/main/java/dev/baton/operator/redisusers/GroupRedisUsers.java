package dev.baton.operator.redisusers;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.BatonNames;
import dev.baton.operator.ControllerKit;
import dev.baton.operator.tenancy.KeyClaims;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** A LeaderGroup's Redis user for its agents, when the operator runs with per-group users. */
@ControllerConfiguration(
    name = "leadergroup-redis-users",
    finalizerName = RedisUserFinalizer.NAME,
    generationAwareEventProcessing = false)
public class GroupRedisUsers implements Reconciler<LeaderGroup>, Cleaner<LeaderGroup> {

  private final RedisUsers users;
  private final KubernetesClient client;

  public GroupRedisUsers(ControllerKit kit, Duration redisTimeout) {
    this.client = kit.client();
    this.users = new RedisUsers(kit, redisTimeout);
  }

  @Override
  public UpdateControl<LeaderGroup> reconcile(LeaderGroup group, Context<LeaderGroup> context) {
    return users.reconcile(() -> subject(group, namespaceLocks(group)));
  }

  @Override
  public DeleteControl cleanup(LeaderGroup group, Context<LeaderGroup> context) {
    return users.cleanup(() -> subject(group, List.of()));
  }

  /**
   * The keys of the accepted RedisLocks of the group's namespace on the same Redis (none with a
   * Redis or a Redlock of their own); read at every resync, so a new lock reaches the group's user
   * within a minute.
   */
  private List<String> namespaceLocks(LeaderGroup group) {
    String ns = group.getMetadata().getNamespace();
    RedisConnectionRef mine = group.getSpec() == null ? null : group.getSpec().getRedis();
    return client.resources(RedisLock.class).inNamespace(ns).list().getItems().stream()
        .filter(l -> l.getSpec() != null && l.getSpec().getRedlock() == null)
        .filter(l -> sameRedis(mine, l.getSpec().getRedis()))
        .filter(l -> l.getStatus() != null && RedisUsers.accepted(l.getStatus().getConditions()))
        .map(KeyClaims::keyOf)
        .toList();
  }

  private static boolean sameRedis(RedisConnectionRef a, RedisConnectionRef b) {
    return Objects.equals(RedisUsers.redisSecret(a), RedisUsers.redisSecret(b));
  }

  static RedisUsers.Subject subject(LeaderGroup g, List<String> lockKeys) {
    String ns = g.getMetadata().getNamespace();
    String name = g.getMetadata().getName();
    return new RedisUsers.Subject(
        g,
        AclRules.groupUser(ns, name),
        BatonNames.redisUserSecret(name),
        AclRules.group(ns, name, KeyClaims.keyOf(g), lockKeys),
        g.getSpec() == null ? null : g.getSpec().getRedis(),
        g.getStatus() == null ? null : g.getStatus().getConditions());
  }
}
