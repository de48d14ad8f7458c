package dev.baton.operator.redisusers;

import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.operator.ControllerKit;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisSettings;
import dev.baton.operator.lease.RedisUnavailableException;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one resource's Redis user (docs/redis-acl.md): its Secret first (the one record of the
 * password), then the user in Redis set from it, every minute, so a user that a Redis restart or
 * failover lost is back within one. Deleting removes the user; the Secret goes with its owner.
 * Nothing here writes a password or its hash to a log, an Event or a status.
 */
final class RedisUsers {

  /** What one resource asks for: who, which Secret, which keys, which Redis. */
  record Subject(
      HasMetadata resource,
      String username,
      String secretName,
      List<String> rules,
      RedisConnectionRef redis,
      List<Condition> conditions) {}

  /** How soon again: the resync that restores a user Redis lost, or a retry after a refusal. */
  static final Duration RESYNC = Duration.ofSeconds(60);

  static final Duration RETRY = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(RedisUsers.class);

  private final ControllerKit kit;
  private final RedisSecrets secrets;
  private final EventRecorder events;
  private final UserSecret userSecrets;
  private final AclCommands acl;

  /** Per resource, the refusal last reported, so a repeated one is one Event, not one a minute. */
  private final Map<String, String> lastRefusal = new ConcurrentHashMap<>();

  RedisUsers(ControllerKit kit, Duration redisTimeout) {
    this.kit = kit;
    this.secrets = kit.secrets();
    this.events = kit.events();
    this.userSecrets = new UserSecret(kit.client());
    this.acl = new AclCommands(redisTimeout.multipliedBy(3));
  }

  /**
   * A reconcile of the resource {@code subject} names: its user kept while this replica acts, and
   * looked at again when {@link #keep} says. Asked only then, since it may read the cluster; null
   * when the resource needs no user.
   */
  <R extends HasMetadata> UpdateControl<R> reconcile(Supplier<Subject> subject) {
    if (!kit.role().mayAct()) {
      return kit.role().notNow();
    }
    Subject s = subject.get();
    return s == null
        ? UpdateControl.noUpdate()
        : UpdateControl.<R>noUpdate().rescheduleAfter(keep(s));
  }

  /** A cleanup: the finalizer goes once the user is deleted, or when there is none. */
  DeleteControl cleanup(Supplier<Subject> subject) {
    if (!kit.role().mayAct()) {
      return kit.role().notNowForCleanup();
    }
    Subject s = subject.get();
    return s == null || remove(s)
        ? DeleteControl.defaultDelete()
        : DeleteControl.noFinalizerRemoval().rescheduleAfter(RETRY);
  }

  /** Makes the user as the Secret says; returns when to look again. */
  Duration keep(Subject s) {
    String id = id(s.resource());
    if (!accepted(s.conditions())) {
      // The operator has not accepted the key yet, or refused it: no user may reach it.
      return RETRY;
    }
    try {
      RedisSettings redis = settings(s);
      UserSecret.Found found =
          userSecrets.ensure(
              s.resource(),
              s.secretName(),
              new UserSecret.Login(s.username(), redis.describe(), redis.caCertificate()));
      acl.setUser(
          kit.connections().redisson(redis), s.username(), found.passwordHashes(), s.rules());
      if (found.rotated()) {
        events.record(
            s.resource(),
            EventReason.RedisUserRotated,
            "Redis user "
                + s.username()
                + " has a new password in Secret "
                + s.secretName()
                + "; the previous one is accepted until the next rotation: restart the agents");
      }
      if (lastRefusal.remove(id) != null) {
        log.info("Redis user {} is set again", s.username());
      }
      return RESYNC;
    } catch (AclCommands.Refused
        | UserSecret.NotOurs
        | RedisSecrets.SecretProblem
        | RedisUnavailableException e) {
      refused(s, e.getMessage());
      return RETRY;
    }
  }

  /** Deletes the user from the Redis the resource used; the Secret goes with its owner. */
  boolean remove(Subject s) {
    lastRefusal.remove(id(s.resource()));
    try {
      acl.deleteUser(kit.connections().redisson(settings(s)), s.username());
      return true;
    } catch (AclCommands.Refused | RedisUnavailableException e) {
      log.warn("Redis user {} not deleted yet: {}", s.username(), e.getMessage());
      return false;
    } catch (RedisSecrets.SecretProblem e) {
      // The Redis is unknown now (its Secret is gone): nothing left to reach.
      log.warn("Redis user {} left in place: {}", s.username(), e.getMessage());
      return true;
    }
  }

  private RedisSettings settings(Subject s) {
    return secrets.settingsOrDefault(
        s.resource().getMetadata().getNamespace(), redisSecret(s.redis()));
  }

  /** The Secret a resource's spec.redis names, or null for the default Redis. */
  static String redisSecret(RedisConnectionRef r) {
    return r == null || r.getSecretRef() == null ? null : r.getSecretRef().getName();
  }

  private void refused(Subject s, String message) {
    String text = "Redis user " + s.username() + " not set: " + message;
    if (!text.equals(lastRefusal.put(id(s.resource()), text))) {
      log.warn("{} {}: {}", s.resource().getKind(), id(s.resource()), text);
      events.record(s.resource(), EventReason.RedisUserRefused, text);
    }
  }

  static boolean accepted(List<Condition> conditions) {
    if (conditions == null || conditions.isEmpty()) {
      return false;
    }
    return conditions.stream()
        .noneMatch(c -> "Invalid".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static String id(HasMetadata r) {
    return r.getMetadata().getNamespace() + "/" + r.getMetadata().getName();
  }
}
