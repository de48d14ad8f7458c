package dev.baton.operator.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testkit.ApiRequestLog;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.FaultInjector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The replica's write fence, against the embedded API server with a fault injector in front. */
class WriteFenceIT {

  /**
   * ChaosIT seed 2394008703375 on a loaded machine: a write answered 500 was resent by Fabric8 on
   * its own timer after the role had lapsed for a moment; the fence threw inside that timer, the
   * request never completed, and the reconcile waiting for it (and so its group) hung for good.
   */
  @Test
  void aWriteThatFailsWhileTheRoleLapsesEndsInsteadOfHangingItsCaller() throws Exception {
    AtomicBoolean mayAct = new AtomicBoolean(true);
    AtomicReference<FaultInjector> faults = new AtomicReference<>();
    try (EmbeddedKubernetes api =
        EmbeddedKubernetes.start(
            real -> {
              faults.set(new FaultInjector(real, 1));
              return faults.get();
            })) {
      Pod pod =
          new PodBuilder()
              .withNewMetadata()
              .withName("p")
              .withNamespace("shop")
              .endMetadata()
              .build();
      api.client().resource(pod).create();
      // The chart's RBAC audit holds this client's requests to the chart's default install.
      ApiRequestLog.operatorStarting(Map.of(ApiRequestLog.IDENTITY, "op-test"));
      KubernetesClient fenced = ReplicaClients.fenced(api.client(), role(mayAct), "op-test");
      // Every write of the pod fails, and the first one to fail takes the role away with it.
      faults
          .get()
          .failAll(
              r -> {
                if (r.getMethod().equals("PATCH")) {
                  mayAct.set(false);
                  return true;
                }
                return false;
              });
      CompletableFuture<Pod> write =
          CompletableFuture.supplyAsync(
              () ->
                  fenced
                      .pods()
                      .inNamespace("shop")
                      .withName("p")
                      .patch(
                          PatchContext.of(PatchType.JSON_MERGE),
                          "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}"));
      // Fabric8's own resend would come within a second; 20 s is for a loaded machine.
      assertThatThrownBy(() -> write.get(20, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(KubernetesClientException.class);
      assertThat(faults.get().writes())
          .as("sent once, through the fence as it was then")
          .filteredOn(w -> w.userAgent().endsWith("/op-test"))
          .hasSize(1);
      fenced.close();
    }
  }

  private static ReplicaRole role(AtomicBoolean mayAct) {
    return new ReplicaRole() {
      @Override
      public boolean mayAct() {
        return mayAct.get();
      }

      @Override
      public boolean holdsRole() {
        return true;
      }

      @Override
      public String describe() {
        return mayAct.get() ? "active" : "active, renewal late";
      }

      @Override
      public void start(Runnable onActive, Runnable onLost) {}

      @Override
      public void close() {}
    };
  }
}
