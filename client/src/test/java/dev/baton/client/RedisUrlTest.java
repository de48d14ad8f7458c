package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisUrlTest {

  @Test
  void readsTheCredentialsWrittenIntoTheUrlAndNeverShowsThem() {
    RedisUrl u = RedisUrl.parse(" redis://baton:s3cret@redis:6379 ");
    assertThat(u.kind()).isEqualTo(RedisUrl.Kind.SINGLE);
    assertThat(u.username()).isEqualTo("baton");
    assertThat(u.password()).isEqualTo("s3cret");
    assertThat(u.describe()).isEqualTo("redis://redis:6379");
    assertThat(u.url()).isEqualTo("redis://baton:s3cret@redis:6379");

    RedisUrl passwordOnly = RedisUrl.parse("redis://s3cret@redis:6379");
    assertThat(passwordOnly.username()).isNull();
    assertThat(passwordOnly.password()).isEqualTo("s3cret");
    assertThat(RedisUrl.parse("redis://:s3cret@redis:6379").username()).isNull();
    assertThat(RedisUrl.parse("redis://redis:6379").password()).isNull();
  }

  @Test
  void namesTheNodesOfSentinelsAndClusters() {
    RedisUrl sentinel = RedisUrl.parse("redis-sentinel://u:pw@a:26379, b:26380/mymaster");
    assertThat(sentinel.kind()).isEqualTo(RedisUrl.Kind.SENTINEL);
    assertThat(sentinel.nodes()).containsExactly("redis://a:26379", "redis://b:26380");
    assertThat(sentinel.sentinelMaster()).isEqualTo("mymaster");

    RedisUrl cluster = RedisUrl.parse("rediss-cluster://n1:6379,n2:6379");
    assertThat(cluster.kind()).isEqualTo(RedisUrl.Kind.CLUSTER);
    assertThat(cluster.tls()).isTrue();
    assertThat(cluster.nodes()).containsExactly("rediss://n1:6379", "rediss://n2:6379");
  }

  @Test
  void refusesWhatNamesNoRedisWithoutShowingCredentials() {
    assertThatThrownBy(() -> RedisUrl.parse("http://redis:6379"))
        .hasMessageContaining("must start with redis://");
    assertThatThrownBy(() -> RedisUrl.parse("redis-sentinel://:pw@a:26379"))
        .hasMessageContaining("must name the master")
        .hasMessageNotContaining("pw");
    assertThatThrownBy(() -> RedisUrl.parse("redis-sentinel://,/mymaster"))
        .hasMessageContaining("at least one sentinel");
    assertThatThrownBy(() -> RedisUrl.parse("redis-cluster://n1:6379,n2"))
        .hasMessageContaining("every node needs a host and a port");
    assertThatThrownBy(() -> RedisUrl.parse("redis://:pw@redis"))
        .hasMessageContaining("'redis://redis' must have a host and a port");
  }
}
