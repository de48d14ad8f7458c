package dev.baton.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;

class PooledHttpClientFactoryTest {

  @Test
  void aPoolAsLargeAsTheProcessorsWithAFloor() {
    assertThat(PooledHttpClientFactory.threads(1)).isEqualTo(4);
    assertThat(PooledHttpClientFactory.threads(2)).isEqualTo(4);
    assertThat(PooledHttpClientFactory.threads(16)).isEqualTo(16);
  }

  @Test
  void theJdkClientGetsABoundedPoolWhoseIdleThreadsEnd() {
    var executor =
        new PooledHttpClientFactory().createNewHttpClientBuilder().build().executor().orElseThrow();

    assertThat(executor).isInstanceOf(ThreadPoolExecutor.class);
    ThreadPoolExecutor pool = (ThreadPoolExecutor) executor;
    int threads = PooledHttpClientFactory.threads(Runtime.getRuntime().availableProcessors());
    assertThat(pool.getMaximumPoolSize()).isEqualTo(threads);
    assertThat(pool.getCorePoolSize()).isEqualTo(threads);
    assertThat(pool.allowsCoreThreadTimeOut()).isTrue();
  }
}
