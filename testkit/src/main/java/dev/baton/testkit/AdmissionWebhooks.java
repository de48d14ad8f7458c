package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * Mutating admission as kube-apiserver does it for a pod being created, where Fabric8's mock has
 * none: every MutatingWebhookConfiguration stored here whose rules and objectSelector match is
 * called with an AdmissionReview v1 over HTTPS, trusting its caBundle alone and checking the
 * certificate for the Service's DNS name ({@code <service>.<namespace>.svc}); its JSON patch is
 * applied as the server applies one (an add below a missing parent refuses the pod); a webhook that
 * cannot be reached is skipped under failurePolicy Ignore and refuses the pod under Fail; and the
 * pod that results is validated ({@link PodValidation}) before it is stored. A Service a
 * configuration names is reached at the address {@link #route} gives it: the test kit has no
 * cluster network.
 */
final class AdmissionWebhooks extends Dispatcher {

  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final Pattern CREATE_POD = Pattern.compile("/api/v1/namespaces/([^/]+)/pods");
  private static final String CONFIGURATIONS =
      "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";

  private final Dispatcher next;
  private final Map<String, InetSocketAddress> routes = new ConcurrentHashMap<>();

  /**
   * Whether a webhook configuration was ever written here: until then a pod's create costs no list
   * of them (the store would scan itself for it on every create).
   */
  private volatile boolean configured;

  AdmissionWebhooks(Dispatcher next) {
    this.next = next;
  }

  /** Where the Service {@code namespace/name} port {@code port} is reached from this process. */
  void route(String namespace, String name, int port, InetSocketAddress to) {
    routes.put(namespace + "/" + name + ":" + port, to);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String path = request.getPath();
    int q = path.indexOf('?');
    String bare = q < 0 ? path : path.substring(0, q);
    if (bare.startsWith(CONFIGURATIONS) && !"GET".equals(request.getMethod())) {
      configured = true;
    }
    Matcher m = CREATE_POD.matcher(bare);
    if (!configured || !"POST".equals(request.getMethod()) || !m.matches()) {
      return next.dispatch(request);
    }
    boolean dryRun = q >= 0 && path.substring(q).contains("dryRun=All");
    JsonNode pod;
    try {
      pod = JSON.readTree(request.getBody().getBytes());
    } catch (IOException e) {
      return status(400, "BadRequest", "the body is not JSON: " + e.getMessage());
    }
    List<String> warnings = new ArrayList<>();
    Admitted admitted = admit(pod, m.group(1), dryRun, warnings);
    if (admitted.refusal() != null) {
      return admitted.refusal();
    }
    pod = admitted.pod();
    List<String> invalid = PodValidation.errors(pod);
    if (!invalid.isEmpty()) {
      return status(
          422,
          "Invalid",
          "Pod \""
              + pod.path("metadata")
                  .path("name")
                  .asText(pod.path("metadata").path("generateName").asText())
              + "\" is invalid: "
              + String.join(", ", invalid));
    }
    MockResponse answer;
    if (dryRun) {
      answer =
          new MockResponse()
              .setResponseCode(201)
              .setHeader("Content-Type", "application/json")
              .setBody(pod.toString());
    } else {
      answer = next.dispatch(StoreRequests.json(HttpMethod.POST, path, pod.toString()));
    }
    for (String w : warnings) {
      answer.addHeader("Warning", "299 - \"" + w.replace("\"", "'") + "\"");
    }
    return answer;
  }

  /** The pod as the webhooks left it, or the API server's refusal. */
  private record Admitted(JsonNode pod, MockResponse refusal) {
    static Admitted refused(MockResponse refusal) {
      return new Admitted(null, refusal);
    }
  }

  /**
   * Calls each matching webhook in turn on the pod as the previous one patched it, as
   * kube-apiserver does; a webhook that does not answer is skipped under failurePolicy Ignore.
   */
  private Admitted admit(JsonNode pod, String namespace, boolean dryRun, List<String> warnings) {
    for (JsonNode webhook : matching(pod)) {
      Called called = call(webhook, pod, namespace, dryRun);
      if (called.failure() != null) {
        if ("Ignore".equals(webhook.path("failurePolicy").asText("Fail"))) {
          continue;
        }
        return Admitted.refused(
            status(
                500,
                "InternalError",
                "Internal error occurred: failed calling webhook \""
                    + webhook.path("name").asText()
                    + "\": "
                    + called.failure()));
      }
      JsonNode response = called.review().path("response");
      response.path("warnings").forEach(w -> warnings.add(w.asText()));
      if (!response.path("allowed").asBoolean(false)) {
        int code = response.path("status").path("code").asInt(403);
        return Admitted.refused(
            status(
                code,
                code == 400 ? "BadRequest" : "Forbidden",
                "admission webhook \""
                    + webhook.path("name").asText()
                    + "\" denied the request: "
                    + response.path("status").path("message").asText()));
      }
      if (response.hasNonNull("patch")) {
        try {
          pod = patched(pod, response);
        } catch (RuntimeException e) {
          return Admitted.refused(
              status(
                  500,
                  "InternalError",
                  "Internal error occurred: webhook \""
                      + webhook.path("name").asText()
                      + "\" sent a patch that does not apply: "
                      + e.getMessage()));
        }
      }
    }
    return new Admitted(pod, null);
  }

  private List<JsonNode> matching(JsonNode pod) {
    MockResponse stored = next.dispatch(StoreRequests.json(HttpMethod.GET, CONFIGURATIONS, null));
    List<JsonNode> out = new ArrayList<>();
    if (stored.code() != 200) {
      return out;
    }
    JsonNode list;
    try {
      list = JSON.readTree(stored.getBody().getBytes());
    } catch (IOException e) {
      return out;
    }
    JsonNode labels = pod.path("metadata").path("labels");
    for (JsonNode config : list.path("items")) {
      for (JsonNode webhook : config.path("webhooks")) {
        if (createsPods(webhook)
            && LabelSelectorMatch.matches(webhook.path("objectSelector"), labels)) {
          out.add(webhook);
        }
      }
    }
    return out;
  }

  private static boolean createsPods(JsonNode webhook) {
    for (JsonNode rule : webhook.path("rules")) {
      if (has(rule.path("operations"), "CREATE")
          && has(rule.path("apiGroups"), "")
          && has(rule.path("apiVersions"), "v1")
          && has(rule.path("resources"), "pods")) {
        return true;
      }
    }
    return false;
  }

  private static boolean has(JsonNode list, String value) {
    for (JsonNode v : list) {
      if (v.asText().equals(value) || v.asText().equals("*")) {
        return true;
      }
    }
    return false;
  }

  /** A webhook's answer, or why there was none. */
  private record Called(JsonNode review, String failure) {}

  private Called call(JsonNode webhook, JsonNode pod, String namespace, boolean dryRun) {
    JsonNode client = webhook.path("clientConfig");
    JsonNode service = client.path("service");
    if (!service.isObject()) {
      return new Called(null, "only clientConfig.service is served by the test kit");
    }
    int port = service.path("port").asInt(443);
    String host = service.path("name").asText() + "." + service.path("namespace").asText() + ".svc";
    InetSocketAddress to =
        routes.get(
            service.path("namespace").asText() + "/" + service.path("name").asText() + ":" + port);
    if (to == null) {
      return new Called(null, "dial tcp: lookup " + host + ": no such host");
    }
    String uid = UUID.randomUUID().toString();
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode req = review.putObject("request");
    req.put("uid", uid);
    req.putObject("kind").put("group", "").put("version", "v1").put("kind", "Pod");
    req.putObject("resource").put("group", "").put("version", "v1").put("resource", "pods");
    req.set("requestKind", req.get("kind"));
    req.set("requestResource", req.get("resource"));
    req.put("namespace", namespace);
    req.put("operation", "CREATE");
    req.putObject("userInfo")
        .put("username", "system:serviceaccount:kube-system:replicaset-controller");
    req.set("object", pod);
    req.putNull("oldObject");
    req.put("dryRun", dryRun);
    req.putObject("options").put("apiVersion", "meta.k8s.io/v1").put("kind", "CreateOptions");
    int timeoutMillis = webhook.path("timeoutSeconds").asInt(10) * 1000;
    try {
      JsonNode answer =
          JSON.readTree(
              post(
                  to,
                  host,
                  service.path("path").asText("/"),
                  client.path("caBundle").asText(""),
                  review.toString().getBytes(StandardCharsets.UTF_8),
                  timeoutMillis));
      if (!uid.equals(answer.path("response").path("uid").asText())) {
        return new Called(null, "expected response.uid=" + uid);
      }
      return new Called(answer, null);
    } catch (IOException | RuntimeException e) {
      return new Called(null, "Post \"https://" + host + ":" + port + "\": " + e);
    }
  }

  /**
   * A POST over TLS, trusting {@code caBundle} alone and checking the certificate for {@code host}.
   */
  private static byte[] post(
      InetSocketAddress to, String host, String path, String caBundle, byte[] body, int timeout)
      throws IOException {
    SSLContext tls;
    try {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      int i = 0;
      for (Certificate c :
          CertificateFactory.getInstance("X.509")
              .generateCertificates(
                  new ByteArrayInputStream(Base64.getDecoder().decode(caBundle)))) {
        trust.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      tls = SSLContext.getInstance("TLS");
      tls.init(null, tmf.getTrustManagers(), null);
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("x509: the caBundle does not hold a usable CA: " + e.getMessage(), e);
    }
    Socket plain = new Socket();
    plain.connect(to, timeout);
    plain.setSoTimeout(timeout);
    try (SSLSocket socket =
        (SSLSocket) tls.getSocketFactory().createSocket(plain, host, to.getPort(), true)) {
      SSLParameters params = socket.getSSLParameters();
      params.setServerNames(List.of(new SNIHostName(host)));
      params.setEndpointIdentificationAlgorithm("HTTPS");
      socket.setSSLParameters(params);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST "
                  + path
                  + "?timeout="
                  + timeout / 1000
                  + "s HTTP/1.1\r\nHost: "
                  + host
                  + "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: "
                  + body.length
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] all = in.readAllBytes();
      String text = new String(all, StandardCharsets.ISO_8859_1);
      int end = text.indexOf("\r\n\r\n");
      if (end < 0 || !text.startsWith("HTTP/1.1 200")) {
        throw new IOException("the webhook answered " + text.lines().findFirst().orElse("nothing"));
      }
      byte[] answer = new byte[all.length - end - 4];
      System.arraycopy(all, end + 4, answer, 0, answer.length);
      return answer;
    }
  }

  private static JsonNode patched(JsonNode pod, JsonNode response) {
    if (!"JSONPatch".equals(response.path("patchType").asText())) {
      throw new IllegalArgumentException("patchType must be JSONPatch");
    }
    JsonNode ops;
    try {
      ops = JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
    } catch (IOException e) {
      throw new IllegalArgumentException("the patch is not JSON");
    }
    return ServerJsonPatch.apply(pod, ops);
  }

  private static MockResponse status(int code, String reason, String message) {
    ObjectNode status = JSON.createObjectNode();
    status.put("kind", "Status").put("apiVersion", "v1").put("status", "Failure");
    status.put("message", message).put("reason", reason).put("code", code);
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", "application/json")
        .setBody(status.toString());
  }

  @Override
  public void shutdown() {
    next.shutdown();
  }
}
