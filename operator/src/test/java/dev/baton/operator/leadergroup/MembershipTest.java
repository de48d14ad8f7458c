package dev.baton.operator.leadergroup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.operator.tenancy.RoleLabelScope;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which pods a group may write on: never one another group marked while it exists, nor one an older
 * group selects, whatever either's role label; a role label outside Baton's domain only on pods
 * that allow it; and this group's own marks on pods it lost are strays to clear.
 */
class MembershipTest {

  private static final RoleLabelScope SCOPE = new RoleLabelScope(List.of());

  @Test
  void anOlderGroupClaimsThePodWhateverItsRoleLabel() {
    LeaderGroup older = group("older", "2026-12-01T00:00:00Z", "baton.dev/role");
    LeaderGroup younger = group("younger", "2026-12-01T00:00:01Z", "baton.dev/other-role");
    Pod p = pod("p-0", Map.of());

    Membership m =
        Membership.of(
            younger, "baton.dev/other-role", List.of(p), List.of(older, younger), n -> true, SCOPE);
    assertThat(m.members()).isEmpty();
    assertThat(m.conflicts()).containsExactly(Map.entry("p-0", "older"));
    assertThat(
            Membership.of(
                    older, "baton.dev/role", List.of(p), List.of(older, younger), n -> true, SCOPE)
                .members())
        .containsExactly(p);
  }

  @Test
  void anOlderGroupTheOperatorRefusesClaimsNoPod() {
    LeaderGroup everything = group("everything", "2026-12-01T00:00:00Z", "baton.dev/role");
    everything.getSpec().setSelector(new LabelSelector());
    LeaderGroup younger = group("younger", "2026-12-01T00:00:01Z", "baton.dev/other-role");
    Pod p = pod("p-0", Map.of());

    assertThat(
            Membership.of(
                    younger,
                    "baton.dev/other-role",
                    List.of(p),
                    List.of(everything, younger),
                    n -> true,
                    SCOPE)
                .members())
        .containsExactly(p);
  }

  @Test
  void aPodMarkedByAnotherGroupThatExistsIsNeverTakenEvenByAnOlderOne() {
    LeaderGroup older = group("older", "2026-12-01T00:00:00Z", "baton.dev/role");
    Pod marked = pod("p-0", Map.of(BatonNames.GROUP_ANNOTATION, "younger"));

    Membership whileItExists =
        Membership.of(older, "baton.dev/role", List.of(marked), List.of(older), n -> true, SCOPE);
    assertThat(whileItExists.members()).isEmpty();
    assertThat(whileItExists.conflicts()).containsExactly(Map.entry("p-0", "younger"));

    // A mark left by a group that is gone is nobody's: the pod is the older group's.
    Membership afterItWent =
        Membership.of(
            older,
            "baton.dev/role",
            List.of(marked),
            List.of(older),
            Set.of("older")::contains,
            SCOPE);
    assertThat(afterItWent.members()).containsExactly(marked);
  }

  @Test
  void aGroupThatLostAPodItMarkedHasItAsAStray() {
    LeaderGroup older = group("older", "2026-12-01T00:00:00Z", "baton.dev/role");
    LeaderGroup younger = group("younger", "2026-12-01T00:00:01Z", "baton.dev/role");
    Pod marked = pod("p-0", Map.of(BatonNames.GROUP_ANNOTATION, "younger"));

    Membership m =
        Membership.of(
            younger, "baton.dev/role", List.of(marked), List.of(older, younger), n -> true, SCOPE);
    assertThat(m.members()).isEmpty();
    assertThat(m.conflicts()).containsExactly(Map.entry("p-0", "older"));
    assertThat(m.strays()).containsExactly(marked);
  }

  @Test
  void aRoleLabelOutsideBatonsDomainGoesOnlyOnPodsThatAllowIt() {
    LeaderGroup g = group("db", "2026-12-01T00:00:00Z", "db.example.com/role");
    Pod plain = pod("db-0", Map.of());
    Pod allowing =
        pod("db-1", Map.of(BatonNames.ALLOW_ROLE_LABEL_ANNOTATION, "db.example.com/role"));
    Pod strayed = pod("db-2", Map.of(BatonNames.GROUP_ANNOTATION, "db"));

    Membership m =
        Membership.of(
            g,
            "db.example.com/role",
            List.of(plain, allowing, strayed),
            List.of(g),
            n -> true,
            SCOPE);
    assertThat(m.members()).containsExactly(allowing);
    assertThat(m.notAllowed()).containsExactly("db-0", "db-2");
    assertThat(m.conflicts()).isEmpty();
    assertThat(m.strays()).containsExactly(strayed);

    Membership allowedByTheOperator =
        Membership.of(
            g,
            "db.example.com/role",
            List.of(plain),
            List.of(g),
            n -> true,
            new RoleLabelScope(List.of("db.example.com/")));
    assertThat(allowedByTheOperator.members()).containsExactly(plain);
  }

  private static LeaderGroup group(String name, String created, String roleLabel) {
    LeaderGroup g = Sandbox.group(name, "app");
    g.getMetadata().setUid("uid-" + name);
    g.getMetadata().setCreationTimestamp(created);
    g.getSpec().setRoleLabel(roleLabel);
    return g;
  }

  private static Pod pod(String name, Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(Sandbox.NS)
        .withLabels(Map.of("app", "app"))
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }
}
