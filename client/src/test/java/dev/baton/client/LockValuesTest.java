package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LockValuesTest {

  @Test
  void podValuesRoundTripAndNameThePod() {
    String v = LockValues.pod("shop", "migrate-7xk2", "6c1f-aa", "0123abcd");
    assertThat(v).isEqualTo("pod:shop/migrate-7xk2/6c1f-aa:0123abcd");
    assertThat(LockValues.parsePod(v))
        .get()
        .isEqualTo(new LockValues.PodRef("shop", "migrate-7xk2", "6c1f-aa", "0123abcd"));
    assertThat(LockValues.holder(v)).isEqualTo("shop/migrate-7xk2");
  }

  @Test
  void suffixMayCarryColonsAndDots() {
    assertThat(LockValues.parsePod("pod:a/b/c:baton.default.ff:x"))
        .get()
        .extracting(LockValues.PodRef::suffix)
        .isEqualTo("baton.default.ff:x");
  }

  @Test
  void anythingElseIsAnExternalHolder() {
    assertThat(LockValues.parsePod("ci-runner-4:abcd")).isEmpty();
    assertThat(LockValues.parsePod("pod:shop/only-two:abcd")).isEmpty();
    assertThat(LockValues.parsePod("pod:shop/a/b")).isEmpty();
    assertThat(LockValues.holder("ci-runner-4:abcd")).isEqualTo("ci-runner-4");
    assertThat(LockValues.holder("plain")).isEqualTo("plain");
  }

  @Test
  void randomSuffixesDiffer() {
    assertThat(LockValues.random()).hasSize(16).isNotEqualTo(LockValues.random());
  }

  @Test
  void ownerFromTheDownwardApiWritesPodValues() {
    LockOwner owner =
        LockOwner.fromEnvironment(
            Map.of("POD_NAMESPACE", "shop", "POD_NAME", "app-0", "POD_UID", "u-1"));
    assertThat(owner.isPod()).isTrue();
    assertThat(owner.newValue()).matches("pod:shop/app-0/u-1:[0-9a-f]{16}");
    assertThat(LockValues.parsePod(owner.newValue()))
        .get()
        .extracting(LockValues.PodRef::name)
        .isEqualTo("app-0");
  }

  @Test
  void ownerWithoutTheDownwardApiSaysWhatIsMissing() {
    assertThatThrownBy(() -> LockOwner.fromEnvironment(Map.of("POD_NAME", "app-0")))
        .hasMessageContaining("POD_NAMESPACE, POD_NAME and POD_UID must be set");
    assertThatThrownBy(() -> LockOwner.external("pod:fake"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keysShareTheHashTagAndRefuseBraces() {
    LockKeys keys = new LockKeys("locks/shop/migration");
    assertThat(keys.lock()).isEqualTo("baton:{locks/shop/migration}:lock");
    assertThat(keys.token()).isEqualTo("baton:{locks/shop/migration}:token");
    assertThat(LockKeys.forResource("shop", "m").key()).isEqualTo("shop/m");
    assertThatThrownBy(() -> new LockKeys("a{b}")).hasMessageContaining("braces");
  }

  @Test
  void aPartOfAnOwnerClaimsOnlyItsOwnValues() {
    LockOwner pod = LockOwner.pod("shop", "app-0", "u1");
    LockOwner job = pod.part("job-1");
    String whole = pod.newValue();
    String mine = job.newValue();
    assertThat(mine).startsWith("pod:shop/app-0/u1:job-1~");
    assertThat(LockValues.holder(mine)).isEqualTo("shop/app-0");
    assertThat(LockValues.parsePod(mine).orElseThrow().uid()).isEqualTo("u1");
    assertThat(job.wrote(mine)).isTrue();
    assertThat(job.wrote(whole)).isFalse();
    assertThat(pod.wrote(mine)).isFalse();
    assertThat(pod.wrote(whole)).isTrue();
    assertThat(pod.part("job-2").wrote(mine)).isFalse();
    assertThat(pod.part("job").wrote(mine)).isFalse();
    assertThatThrownBy(() -> pod.part("a:b")).hasMessageContaining("1 to 128 letters");
    assertThatThrownBy(() -> pod.part("")).hasMessageContaining("1 to 128 letters");
  }
}
