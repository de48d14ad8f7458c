package dev.baton.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Keys and certificates as kubeconfigs carry them (test keys made with openssl for this test). */
class PemTest {

  @ParameterizedTest
  @CsvSource({"ec.key, EC", "ec8.key, EC", "rsa.key, RSA"})
  void readsEveryPrivateKeyFormKubeconfigsUse(String file, String algorithm) throws Exception {
    assertThat(Pem.privateKey(read(file)).getAlgorithm()).isEqualTo(algorithm);
  }

  @Test
  void readsCertificates() throws Exception {
    assertThat(Pem.certificates(read("ec.crt"))).hasSize(1);
    assertThat(Pem.certificates(read("rsa.crt"))).hasSize(1);
  }

  private static byte[] read(String file) throws Exception {
    try (InputStream in = PemTest.class.getResourceAsStream("/pem/" + file)) {
      return in.readAllBytes();
    }
  }
}
