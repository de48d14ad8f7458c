package dev.baton.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import java.lang.reflect.Method;
import java.net.http.HttpClient;
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
  void plainHttpIsSpokenInHttp11AndTlsLeftToNegotiate() {
    assertThat(PooledHttpClientFactory.plainHttp("http://127.0.0.1:8080/")).isTrue();
    assertThat(PooledHttpClientFactory.plainHttp("HTTP://localhost")).isTrue();
    assertThat(PooledHttpClientFactory.plainHttp("https://10.0.0.1:443/")).isFalse();
    assertThat(PooledHttpClientFactory.plainHttp(null)).isFalse();

    var http =
        new PooledHttpClientFactory()
            .newBuilder(new ConfigBuilder().withMasterUrl("http://127.0.0.1:1").build())
            .build();
    var https =
        new PooledHttpClientFactory()
            .newBuilder(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
            .build();
    assertThat(jdk(http).version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    assertThat(jdk(https).version()).isEqualTo(HttpClient.Version.HTTP_2);
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

  /** The JDK client inside Fabric8's; its getter is package-private. */
  private static HttpClient jdk(io.fabric8.kubernetes.client.http.HttpClient client) {
    try {
      Method get = client.getClass().getDeclaredMethod("getHttpClient");
      get.setAccessible(true);
      return (HttpClient) get.invoke(client);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
