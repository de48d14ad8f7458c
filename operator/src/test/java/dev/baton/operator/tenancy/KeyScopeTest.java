package dev.baton.operator.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a namespace may claim: keys in its own namespace or a shared prefix, and role labels. */
class KeyScopeTest {

  private final KeyScope closed = new KeyScope(List.of());
  private final KeyScope shared = new KeyScope(List.of("global/"));

  @Test
  void aKeyIsTheNamespacesOwnOrUnderASharedPrefix() {
    assertThat(closed.refusal("spec.electionKey", "shop", "shop/orders")).isNull();
    assertThat(closed.refusal("spec.electionKey", "shop", "shop/a/b:c")).isNull();
    assertThat(shared.refusal("spec.electionKey", "dev", "global/orders")).isNull();

    Refusal foreign = closed.refusal("spec.electionKey", "dev", "shop/orders");
    assertThat(foreign.reason()).isEqualTo(Refusal.OUTSIDE_NAMESPACE);
    assertThat(foreign.message())
        .isEqualTo(
            "spec.electionKey 'shop/orders' is outside namespace dev: a key must start with"
                + " 'dev/' or 'locks/dev/' (the operator shares no prefix between namespaces)");
    assertThat(shared.refusal("spec.key", "dev", "shop/orders").message())
        .endsWith(
            "must start with 'dev/' or 'locks/dev/' or a prefix the operator shares (global/)");
    // A namespace's name alone, a longer namespace that starts alike, or a bare prefix: none.
    assertThat(closed.refusal("spec.key", "shop", "shop")).isNotNull();
    assertThat(closed.refusal("spec.key", "shop", "shop/")).isNotNull();
    assertThat(closed.refusal("spec.key", "shop", "shopping/orders")).isNotNull();
    assertThat(shared.refusal("spec.key", "dev", "global/")).isNotNull();
  }

  @Test
  void underLocksTheSecondSegmentIsTheNamespace() {
    assertThat(closed.refusal("spec.key", "shop", "locks/shop/migration")).isNull();
    assertThat(closed.refusal("spec.key", "dev", "locks/shop/migration").reason())
        .isEqualTo(Refusal.OUTSIDE_NAMESPACE);
    // The namespace named locks cannot reach other namespaces' lock keys through its own prefix.
    assertThat(closed.refusal("spec.key", "locks", "locks/shop/migration")).isNotNull();
    assertThat(closed.refusal("spec.key", "locks", "locks/locks/migration")).isNull();
    assertThat(closed.refusal("spec.key", "shop", "locks/shop/")).isNotNull();
  }

  @Test
  void batonsOwnKeysAreNoNamespacesEvenItsNamesake() {
    assertThat(closed.refusal("spec.key", "gate", "gate:shop/orders").message())
        .contains("'gate:shop/orders' is reserved");
    assertThat(closed.refusal("spec.key", "baton-operator", "baton-operator/default").message())
        .contains("keys under baton-operator/ are the operator's own registration");
    assertThat(closed.refusal("spec.key", "shop", "shop/{x}").message())
        .contains("may hold only letters, digits");
    assertThat(closed.refusal("spec.key", "shop", "shop/a*").message())
        .contains("no braces, spaces or wildcards");
  }

  @Test
  void aRoleLabelOutsideBatonsDomainGoesOnlyOnPodsThatAllowIt() {
    RoleLabelScope scope = new RoleLabelScope(List.of("example.org/"));
    Pod plain = pod(Map.of());
    Pod optedIn =
        pod(Map.of(BatonNames.ALLOW_ROLE_LABEL_ANNOTATION, "other.io/x, db.example.com/role"));

    assertThat(scope.confined("baton.dev/role")).isTrue();
    assertThat(scope.confined("baton.dev/orders-role")).isTrue();
    assertThat(scope.confined("example.org/role")).isTrue();
    assertThat(scope.confined("locks.baton.dev/migration")).isFalse();
    assertThat(scope.confined("app")).isFalse();

    assertThat(scope.mayLabel(plain, "baton.dev/role")).isTrue();
    assertThat(scope.mayLabel(plain, "app")).isFalse();
    assertThat(scope.mayLabel(plain, "db.example.com/role")).isFalse();
    assertThat(scope.mayLabel(optedIn, "db.example.com/role")).isTrue();
    assertThat(scope.mayLabel(optedIn, "app")).isFalse();
  }

  private static Pod pod(Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p")
        .withNamespace("shop")
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }
}
