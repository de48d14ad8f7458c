package dev.baton.bench.scale;

import dev.baton.bench.locks.RedisInfo;
import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.LocalRedisCluster;
import java.util.List;

/** The Redis a benchmark runs Baton on: one redis-server, or a Redis Cluster. */
public interface BenchRedis extends AutoCloseable {

  /** The URL the operator is given (BATON_REDIS_URL). */
  String url();

  /** INFO figures, summed over the servers that take the operator's traffic. */
  RedisInfo info();

  /** The server process, when there is exactly one (its CPU is reported); else null. */
  ProcessHandle process();

  @Override
  void close();

  static BenchRedis start(boolean cluster) {
    return cluster ? new Cluster(LocalRedisCluster.start()) : new Single(LocalRedis.start());
  }

  /** One redis-server. */
  record Single(LocalRedis redis) implements BenchRedis {
    @Override
    public String url() {
      return redis.url();
    }

    @Override
    public RedisInfo info() {
      return RedisInfo.of(redis.port());
    }

    @Override
    public ProcessHandle process() {
      // redis-server rewrites its process title, so it is found as this JVM's youngest child
      // whose executable is Redis's (the redis-server of the other benchmarks has stopped).
      return ProcessHandle.current()
          .children()
          .filter(p -> p.info().command().orElse("").contains("redis"))
          .max(
              java.util.Comparator.comparing(
                  p -> p.info().startInstant().orElse(java.time.Instant.MIN)))
          .orElse(null);
    }

    @Override
    public void close() {
      redis.close();
    }
  }

  /** Three masters and three replicas; figures summed over the masters. */
  record Cluster(LocalRedisCluster cluster) implements BenchRedis {
    @Override
    public String url() {
      return cluster.url();
    }

    @Override
    public RedisInfo info() {
      List<Integer> ports = cluster.masters().stream().map(LocalRedis::port).toList();
      return RedisInfo.of(ports);
    }

    @Override
    public ProcessHandle process() {
      return null;
    }

    @Override
    public void close() {
      cluster.close();
    }
  }
}
