package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what the lock scripts publish on {@code baton:locks} (a lock acquired or released, or an
 * acquire refused for want of a token reservation) into reconciles of the RedisLocks on that key,
 * so that an application's lock shows in the status, and its tokens are reserved, as it happens.
 * The reconcile timer stays as the fallback for anything missed while a subscription was down.
 */
final class LockEvents extends AbstractEventSource<Void, RedisLock> {

  static final String CHANNEL = "baton:locks";
  private static final Logger log = LoggerFactory.getLogger(LockEvents.class);

  /** Redis lock key ({@code baton:{key}:lock}) to the RedisLocks that use it. */
  private final Map<String, Set<ResourceID>> byKey = new ConcurrentHashMap<>();

  private final Map<ResourceID, String> keyOf = new ConcurrentHashMap<>();
  private final Set<RedissonClient> subscribed = ConcurrentHashMap.newKeySet();

  LockEvents() {
    super(Void.class, "lock-events");
  }

  /** Listens on this Redis, once per client; a failed subscription is tried again next time. */
  void listen(RedissonClient redisson) {
    if (!subscribed.add(redisson)) {
      return;
    }
    redisson
        .getTopic(CHANNEL, StringCodec.INSTANCE)
        .addListenerAsync(String.class, (channel, message) -> onMessage(message))
        .whenComplete(
            (id, error) -> {
              if (error != null) {
                subscribed.remove(redisson);
                log.debug("cannot subscribe to {} yet: {}", CHANNEL, error.toString());
              }
            });
  }

  void watch(ResourceID lock, String redisKey) {
    String before = keyOf.put(lock, redisKey);
    if (before != null && !before.equals(redisKey)) {
      unindex(lock, before);
    }
    byKey.computeIfAbsent(redisKey, k -> ConcurrentHashMap.newKeySet()).add(lock);
  }

  void forget(ResourceID lock) {
    String key = keyOf.remove(lock);
    if (key != null) {
      unindex(lock, key);
    }
  }

  private void unindex(ResourceID lock, String redisKey) {
    byKey.computeIfPresent(
        redisKey,
        (k, ids) -> {
          ids.remove(lock);
          return ids.isEmpty() ? null : ids;
        });
  }

  private void onMessage(String message) {
    int space = message.indexOf(' ');
    Set<ResourceID> locks = byKey.get(message.substring(space + 1));
    if (locks != null && isRunning()) {
      locks.forEach(id -> getEventHandler().handleEvent(new Event(id)));
    }
  }

  @Override
  public Set<Void> getSecondaryResources(RedisLock primary) {
    return Set.of();
  }
}
