package dev.baton.operator.certificates;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Date;
import java.util.List;
import java.util.stream.Collectors;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/** A call of the webhook as kube-apiserver makes one, for tests that move the clock. */
final class WebhookCall {

  private WebhookCall() {}

  /**
   * An AdmissionReview over TLS as the API server sends one: trusting the caBundle as it is now,
   * the name checked, validity judged at the test's clock.
   */
  static void post(int port, String host, List<X509Certificate> trusted, Clock clock)
      throws Exception {
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, new TrustManager[] {new AtClock(trusted, clock, host)}, null);
    Socket plain = new Socket();
    plain.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    plain.setSoTimeout(5000);
    try (SSLSocket socket =
        (SSLSocket) tls.getSocketFactory().createSocket(plain, host, port, true)) {
      SSLParameters params = socket.getSSLParameters();
      params.setServerNames(List.of(new SNIHostName(host)));
      socket.setSSLParameters(params);
      byte[] body =
          ("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\","
                  + "\"kind\":{\"kind\":\"Pod\"},\"operation\":\"UPDATE\",\"object\":{}}}")
              .getBytes(StandardCharsets.UTF_8);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /mutate-pods HTTP/1.1\r\nHost: "
                  + host
                  + "\r\nContent-Type: application/json\r\nContent-Length: "
                  + body.length
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!answer.startsWith("HTTP/1.1 200") || !answer.contains("\"allowed\":true")) {
        throw new IllegalStateException("answered " + answer.lines().findFirst().orElse(""));
      }
    }
  }

  /**
   * Trusts the given CAs, judged by the clock the servers use too, as the handshake happens, and
   * the server's name only.
   */
  private static final class AtClock implements X509TrustManager {
    private final List<X509Certificate> anchors;
    private final Clock clock;
    private final String host;

    AtClock(List<X509Certificate> anchors, Clock clock, String host) {
      this.anchors = anchors;
      this.clock = clock;
      this.host = host;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      try {
        PKIXParameters params =
            new PKIXParameters(
                anchors.stream().map(a -> new TrustAnchor(a, null)).collect(Collectors.toSet()));
        params.setRevocationEnabled(false);
        params.setDate(Date.from(clock.instant()));
        CertPathValidator.getInstance("PKIX")
            .validate(
                CertificateFactory.getInstance("X.509").generateCertPath(List.of(chain)), params);
        var names = chain[0].getSubjectAlternativeNames();
        if (names == null
            || names.stream()
                .noneMatch(n -> Integer.valueOf(2).equals(n.get(0)) && host.equals(n.get(1)))) {
          throw new CertificateException("x509: certificate is not valid for " + host);
        }
      } catch (CertificateException e) {
        throw e;
      } catch (Exception e) {
        throw new CertificateException("x509: " + e.getMessage(), e);
      }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {
      throw new UnsupportedOperationException();
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return anchors.toArray(new X509Certificate[0]);
    }
  }
}
