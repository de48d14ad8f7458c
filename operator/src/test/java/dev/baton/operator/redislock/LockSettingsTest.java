package dev.baton.operator.redislock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedlockSpec;
import dev.baton.operator.testing.BatonCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockSettingsTest {

  private static RedisLock lock(String ttl) {
    return BatonCluster.redisLock("migration", ttl);
  }

  private static List<RedisConnectionRef> refs(String... names) {
    return java.util.Arrays.stream(names).map(RedisConnectionRef::new).toList();
  }

  @Test
  void defaultsKeyFromNamespaceAndNameAndRenewsAtAThirdOfTheTtl() {
    LockSettings s = LockSettings.of(lock("30s"));
    assertThat(s.keys().lock()).isEqualTo("baton:{shop/migration}:lock");
    assertThat(s.keys().token()).isEqualTo("baton:{shop/migration}:token");
    assertThat(s.interval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.grants()).isFalse();
    assertThat(s.isRedlock()).isFalse();
    assertThat(LockSettings.of(lock("1h")).interval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.labelKey()).isEqualTo("locks.baton.dev/migration");
  }

  @Test
  void refusesWhatTheCrdRulesRefuse() {
    RedisLock both = lock("10s");
    both.getSpec().setRedis(new RedisConnectionRef("r"));
    both.getSpec().setRedlock(new RedlockSpec(refs("a", "b", "c")));
    assertThatThrownBy(() -> LockSettings.of(both)).hasMessageContaining("not both");

    RedisLock two = lock("10s");
    two.getSpec().setRedlock(new RedlockSpec(refs("a", "b")));
    assertThatThrownBy(() -> LockSettings.of(two)).hasMessageContaining("at least 3");

    RedisLock four = lock("10s");
    four.getSpec().setRedlock(new RedlockSpec(refs("a", "b", "c", "d")));
    assertThatThrownBy(() -> LockSettings.of(four)).hasMessageContaining("odd number");

    RedisLock twice = lock("10s");
    twice.getSpec().setRedlock(new RedlockSpec(refs("a", "b", "a")));
    assertThatThrownBy(() -> LockSettings.of(twice)).hasMessageContaining("Secret a twice");

    assertThatThrownBy(() -> LockSettings.of(lock("500ms"))).hasMessageContaining("between 1s");
    assertThatThrownBy(() -> LockSettings.of(lock("soon"))).hasMessageContaining("spec.ttl");

    RedisLock braces = lock("10s");
    braces.getSpec().setKey("a{b}");
    assertThatThrownBy(() -> LockSettings.of(braces)).hasMessageContaining("braces");
  }

  @Test
  void grantValuesNameThePodAndTheCluster() {
    String v = LockLabels.grantValue("default", "shop", "migrate-0", "uid-1");
    assertThat(v).matches("pod:shop/migrate-0/uid-1:baton\\.default\\.[0-9a-f]{16}");
    assertThat(LockLabels.grantedHere(v, "default")).isPresent();
    assertThat(LockLabels.grantedHere(v, "other")).isEmpty();
    assertThat(
            LockLabels.grantedHere(
                LockLabels.grantValue("default.eu", "shop", "m", "u"), "default"))
        .isEmpty();
    assertThat(LockLabels.isGrant(v)).isTrue();
    assertThat(LockLabels.isGrant("pod:shop/app-0/uid:0123456789abcdef")).isFalse();
  }
}
