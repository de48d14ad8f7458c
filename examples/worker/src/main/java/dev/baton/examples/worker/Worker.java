package dev.baton.examples.worker;

import dev.baton.client.BatonLeadership;
import dev.baton.client.LeadershipListener;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A singleton worker: it works only while its pod leads its LeaderGroup, learns that from
 * baton-client within milliseconds, and writes its results with its term so that a late write of an
 * old leader is refused. Configured from the environment (examples/leadership-worker.yaml):
 *
 * <ul>
 *   <li>{@code POD_NAMESPACE}, {@code POD_NAME}, {@code POD_UID}: the downward API
 *   <li>{@code LEADERSHIP_SOURCE}: {@code pod} (default: a watch on its own pod) or {@code redis}
 *       (the election's record; needs {@code REDIS_URL} and {@code ELECTION_KEY})
 *   <li>{@code REDIS_URL}: when set, each run is appended to a fenced journal in that Redis
 *   <li>{@code JOURNAL}: the journal's name, default {@code <namespace>/worker}
 *   <li>{@code ELECTION_KEY}: the group's electionKey, default {@code <namespace>/<LEADER_GROUP>}
 *   <li>{@code WORK_EVERY}: seconds between runs, default 5
 *   <li>{@code BATON_API_URL}: outside a cluster, an API server to use without credentials (e.g.
 *       {@code kubectl proxy} on http://127.0.0.1:8001)
 * </ul>
 */
public final class Worker implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Worker.class);

  private final String pod;
  private final Consumer<String> say;
  private final Duration every;
  private final RedissonClient redisson;
  private final FencedJournal journal;
  private final BatonLeadership leadership;
  private final ScheduledExecutorService work =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "worker");
            t.setDaemon(true);
            return t;
          });
  private ScheduledFuture<?> running;

  public static void main(String[] args) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Worker worker = new Worker(System.getenv(), log::info);
    // The readiness probe's file: the pod becomes a candidate once the worker is up.
    try {
      java.nio.file.Files.writeString(java.nio.file.Path.of("/tmp/ready"), "ready\n");
    } catch (java.io.IOException e) {
      log.warn("cannot write /tmp/ready for the readiness probe: {}", e.toString());
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  // Revokes (the work stops) and lets a successor go ahead before the pod ends.
                  worker.close();
                  stopped.countDown();
                }));
    stopped.await();
  }

  public Worker(Map<String, String> env, Consumer<String> say) {
    this.pod = require(env, "POD_NAME");
    this.say = say;
    this.every = Duration.ofSeconds(Long.parseLong(env.getOrDefault("WORK_EVERY", "5")));
    String redisUrl = env.get("REDIS_URL");
    this.redisson = redisUrl == null ? null : connect(redisUrl);
    String namespace = require(env, "POD_NAMESPACE");
    this.journal =
        redisson == null
            ? null
            : new FencedJournal(redisson, env.getOrDefault("JOURNAL", namespace + "/worker"));
    BatonLeadership.Options options = BatonLeadership.Options.defaults();
    if ("redis".equals(env.getOrDefault("LEADERSHIP_SOURCE", "pod"))) {
      if (redisson == null) {
        throw new IllegalStateException("LEADERSHIP_SOURCE=redis needs REDIS_URL");
      }
      String key = env.getOrDefault("ELECTION_KEY", namespace + "/" + require(env, "LEADER_GROUP"));
      this.leadership =
          BatonLeadership.readingRedis(redisson, key, require(env, "POD_UID"), options);
    } else if (env.get("BATON_API_URL") != null) {
      this.leadership =
          BatonLeadership.watchingPod(
              URI.create(env.get("BATON_API_URL")), namespace, pod, options);
    } else {
      this.leadership = BatonLeadership.watchingPod(options);
    }
    leadership.addListener(
        new LeadershipListener() {
          @Override
          public void granted(long term) {
            say.accept("granted term " + term);
            start(term);
          }

          @Override
          public void revoked(String reason) {
            stop();
            say.accept("revoked: " + reason);
          }
        });
  }

  private synchronized void start(long term) {
    running =
        work.scheduleWithFixedDelay(
            () -> runOnce(term), 0, every.toMillis(), TimeUnit.MILLISECONDS);
  }

  private synchronized void stop() {
    if (running != null) {
      running.cancel(false);
      running = null;
    }
  }

  /** One run of the singleton's work, written with the term it was granted. */
  void runOnce(long term) {
    String entry = pod + " ran at " + Instant.now();
    if (journal == null) {
      say.accept("working as term " + term);
      return;
    }
    try {
      OptionalLong refusedBy = journal.append(term, entry);
      if (refusedBy.isPresent()) {
        say.accept("write refused: term " + term + " is behind term " + refusedBy.getAsLong());
      } else {
        say.accept("working as term " + term);
      }
    } catch (RuntimeException e) {
      say.accept("write failed: " + e.getClass().getSimpleName());
    }
  }

  public boolean leading() {
    return leadership.isLeader();
  }

  private static RedissonClient connect(String url) {
    Config config = new Config();
    config.useSingleServer().setAddress(url).setTimeout(1000).setConnectTimeout(1000);
    return Redisson.create(config);
  }

  private static String require(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(name + " must be set (see examples/leadership-worker.yaml)");
    }
    return v.trim();
  }

  @Override
  public void close() {
    leadership.close();
    work.shutdownNow();
    if (redisson != null) {
      redisson.shutdown();
    }
  }
}
