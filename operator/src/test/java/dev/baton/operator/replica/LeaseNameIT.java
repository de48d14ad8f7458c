package dev.baton.operator.replica;

import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.BatonOperator;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The operator's Lease is the one BATON_LEADER_ELECTION_LEASE_NAME names: an operator so configured
 * elects itself through that Lease and leaves the default one alone, so two installs in one
 * namespace do not elect one active operator between them. ChartRbacAudit holds its requests
 * against the chart rendered with the same leaderElection.leaseName.
 */
class LeaseNameIT {

  private Sandbox cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void anOperatorElectsItselfThroughTheLeaseItIsGiven() {
    cluster =
        new Sandbox(EmbeddedKubernetes.start(), BatonOperator::launch)
            .env("BATON_LEADER_ELECTION", "true")
            .env("BATON_LEADER_ELECTION_NAMESPACE", NS)
            .env("BATON_LEADER_ELECTION_LEASE_NAME", "baton-team-a")
            .env("BATON_LEADER_ELECTION_IDENTITY", "team-a-0");
    cluster.createPod("payments-0", "payments");
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Lease lease = cluster.client.leases().inNamespace(NS).withName("baton-team-a").get();
              assertThat(lease).isNotNull();
              assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("team-a-0");
              assertThat(cluster.leaders("baton.dev/role")).containsExactly("payments-0");
            });
    assertThat(cluster.client.leases().inNamespace(NS).withName("baton-operator").get())
        .as("the default Lease, another install's")
        .isNull();
  }
}
