package dev.baton.operator.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisSettingsTest {

  @Test
  void neverShowsThePasswordNorUserInfoInTheUrl() {
    RedisSettings s = new RedisSettings("redis://user:hunter2@redis:6379", "u", "pw-123");
    assertThat(s.toString()).doesNotContain("hunter2").doesNotContain("pw-123");
    assertThat(s.describe()).isEqualTo("redis://redis:6379");
  }

  @Test
  void parsesSentinelUrls() {
    RedisSettings s = new RedisSettings("redis-sentinel://a:26379,b:26380/mymaster", null, null);
    assertThat(s.sentinel()).isTrue();
    assertThat(s.sentinelAddresses()).containsExactly("redis://a:26379", "redis://b:26380");
    assertThat(s.sentinelMaster()).isEqualTo("mymaster");
  }

  @Test
  void refusesBadUrlsWithoutEchoingCredentials() {
    assertThatThrownBy(() -> new RedisSettings("http://x:1", null, null))
        .hasMessageContaining("must start with redis://");
    assertThatThrownBy(() -> new RedisSettings("redis-sentinel://a:1", null, null))
        .hasMessageContaining("must name the master");
    assertThatThrownBy(() -> new RedisSettings("redis://:s3cret@host", null, null))
        .hasMessageContaining("host and a port")
        .hasMessageNotContaining("s3cret");
  }
}
