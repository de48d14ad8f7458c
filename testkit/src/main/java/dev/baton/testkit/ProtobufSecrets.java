package dev.baton.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Accepts Secrets written in Kubernetes' protobuf encoding ({@code
 * application/vnd.kubernetes.protobuf}), which a real API server takes for every built-in type and
 * client-go's typed clients send (Helm keeps its releases in Secrets that way), by decoding them to
 * the JSON the mock server stores. Only Secrets, and only the fields such clients set (the
 * metadata's names, labels, annotations, finalizers and resourceVersion; data, stringData, type,
 * immutable); anything else written in protobuf is answered 415, so nothing is silently dropped.
 * Answers are JSON, which those clients accept too, labeled as such.
 */
final class ProtobufSecrets extends Dispatcher {

  static final String PROTOBUF = "application/vnd.kubernetes.protobuf";

  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final Pattern SECRETS =
      Pattern.compile("/api/v1/namespaces/[^/]+/secrets(/[^/?]+)?(\\?.*)?");

  /** Every protobuf-encoded object starts with these four bytes, then a runtime.Unknown. */
  private static final byte[] MAGIC = {'k', '8', 's', 0};

  private final Dispatcher next;

  ProtobufSecrets(Dispatcher next) {
    this.next = next;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    MockResponse response = decoded(request);
    // A client that takes protobuf or JSON reads an answer without a Content-Type as protobuf;
    // a real server always names it.
    String accept = request.getHeader("Accept");
    if (accept != null
        && accept.contains(PROTOBUF)
        && response.getWebSocketListener() == null
        && response.header("Content-Type") == null) {
      response.setHeader("Content-Type", "application/json");
    }
    return response;
  }

  private MockResponse decoded(RecordedRequest request) {
    String type = request.getHeader("Content-Type");
    if (type == null || !type.startsWith(PROTOBUF)) {
      return next.dispatch(request);
    }
    if (!SECRETS.matcher(request.getPath()).matches()) {
      return StoreRequests.unsupported(
          "protobuf bodies are accepted for Secrets only here: " + request.getPath());
    }
    String json;
    try {
      if (request.getMethod().equals("DELETE")) {
        deleteOptions(request.getBody().getBytes());
        json = "";
      } else {
        json = secret(request.getBody().getBytes()).toString();
      }
    } catch (IllegalArgumentException e) {
      return StoreRequests.unsupported(e.getMessage());
    }
    Headers headers =
        request.getHeaders().newBuilder().set("Content-Type", "application/json").build();
    return next.dispatch(
        new RecordedRequest(
            "HTTP/1.1",
            HttpMethod.valueOf(request.getMethod()),
            request.getPath(),
            headers,
            new Buffer().writeUtf8(json)));
  }

  @Override
  public void shutdown() {
    next.shutdown();
  }

  /**
   * Checks a delete's options: the mock deletes at once whatever they say, so only options that
   * change nothing on such a store pass (grace period, propagation policy); preconditions and dry
   * runs are refused.
   */
  static void deleteOptions(byte[] body) {
    Wire options = new Wire(unwrap(body, "DeleteOptions"));
    while (options.more()) {
      switch (options.tag()) {
        case 2 -> throw new IllegalArgumentException("delete preconditions not supported here");
        case 5 -> throw new IllegalArgumentException("dry-run delete not supported here");
        default -> options.skip();
      }
    }
  }

  /** A v1 Secret from its protobuf envelope. */
  static ObjectNode secret(byte[] body) {
    byte[] raw = unwrap(body, "Secret");
    ObjectNode secret = JSON.createObjectNode();
    secret.put("apiVersion", "v1").put("kind", "Secret");
    Wire w = new Wire(raw);
    while (w.more()) {
      switch (w.tag()) {
        case 1 -> secret.set("metadata", metadata(w.message()));
        case 2 -> {
          Map.Entry<String, byte[]> e = w.entry();
          secret.with("data").put(e.getKey(), Base64.getEncoder().encodeToString(e.getValue()));
        }
        case 3 -> secret.put("type", w.string());
        case 4 -> {
          Map.Entry<String, byte[]> e = w.entry();
          secret.with("stringData").put(e.getKey(), utf8(e.getValue()));
        }
        case 5 -> secret.put("immutable", w.varint() != 0);
        default -> throw new IllegalArgumentException("Secret field " + w.field + " not supported");
      }
    }
    return secret;
  }

  /**
   * The encoded object inside a protobuf envelope (a runtime.Unknown after k8s\\0), of this kind.
   */
  private static byte[] unwrap(byte[] body, String expectedKind) {
    if (body.length < 4 || !Arrays.equals(Arrays.copyOf(body, 4), MAGIC)) {
      throw new IllegalArgumentException("not a Kubernetes protobuf object (no k8s\\0 prefix)");
    }
    Wire unknown = new Wire(Arrays.copyOfRange(body, 4, body.length));
    String apiVersion = "";
    String kind = "";
    byte[] raw = null;
    while (unknown.more()) {
      int field = unknown.tag();
      switch (field) {
        case 1 -> {
          Wire typeMeta = unknown.message();
          while (typeMeta.more()) {
            switch (typeMeta.tag()) {
              case 1 -> apiVersion = typeMeta.string();
              case 2 -> kind = typeMeta.string();
              default -> typeMeta.skip();
            }
          }
        }
        case 2 -> raw = unknown.bytes();
        default -> unknown.skip(); // contentEncoding, contentType: empty for plain protobuf
      }
    }
    if (!apiVersion.equals("v1") || !kind.equals(expectedKind) || raw == null) {
      throw new IllegalArgumentException(
          "expected a v1 " + expectedKind + ", got " + apiVersion + " " + kind);
    }
    return raw;
  }

  private static ObjectNode metadata(Wire w) {
    ObjectNode m = JSON.createObjectNode();
    while (w.more()) {
      switch (w.tag()) {
        case 1 -> m.put("name", w.string());
        case 2 -> m.put("generateName", w.string());
        case 3 -> m.put("namespace", w.string());
        case 4 -> m.put("selfLink", w.string());
        case 5 -> m.put("uid", w.string());
        case 6 -> m.put("resourceVersion", w.string());
        case 7 -> m.put("generation", w.varint());
        case 8 -> {
          // metav1.Time: seconds and nanos; the zero time (an empty message) means unset.
          Wire time = w.message();
          long seconds = 0;
          while (time.more()) {
            if (time.tag() == 1) {
              seconds = time.varint();
            } else {
              time.skip();
            }
          }
          if (seconds != 0) {
            m.put("creationTimestamp", Instant.ofEpochSecond(seconds).toString());
          }
        }
        case 11 -> {
          Map.Entry<String, byte[]> e = w.entry();
          m.with("labels").put(e.getKey(), utf8(e.getValue()));
        }
        case 12 -> {
          Map.Entry<String, byte[]> e = w.entry();
          m.with("annotations").put(e.getKey(), utf8(e.getValue()));
        }
        case 14 -> {
          ArrayNode finalizers =
              m.has("finalizers") ? (ArrayNode) m.get("finalizers") : m.putArray("finalizers");
          finalizers.add(w.string());
        }
        default ->
            throw new IllegalArgumentException("ObjectMeta field " + w.field + " not supported");
      }
    }
    return m;
  }

  private static String utf8(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Reads protobuf's wire format: a tag (field number and wire type), then its value. */
  private static final class Wire {
    private final byte[] b;
    private int pos;
    int field;
    private int wireType;

    Wire(byte[] b) {
      this.b = b;
    }

    boolean more() {
      return pos < b.length;
    }

    int tag() {
      long tag = varint();
      field = (int) (tag >>> 3);
      wireType = (int) (tag & 7);
      return field;
    }

    long varint() {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= b.length) {
          throw new IllegalArgumentException("truncated protobuf varint");
        }
        byte x = b[pos++];
        value |= (long) (x & 0x7f) << shift;
        if ((x & 0x80) == 0) {
          return value;
        }
      }
      throw new IllegalArgumentException("malformed protobuf varint");
    }

    byte[] bytes() {
      if (wireType != 2) {
        throw new IllegalArgumentException("field " + field + " is not length-delimited");
      }
      int length = (int) varint();
      if (length < 0 || pos + length > b.length) {
        throw new IllegalArgumentException("truncated protobuf field " + field);
      }
      byte[] out = Arrays.copyOfRange(b, pos, pos + length);
      pos += length;
      return out;
    }

    String string() {
      return utf8(bytes());
    }

    Wire message() {
      return new Wire(bytes());
    }

    /** A map entry: a message with the key in field 1 and the value in field 2. */
    Map.Entry<String, byte[]> entry() {
      Wire e = message();
      String key = "";
      byte[] value = new byte[0];
      while (e.more()) {
        switch (e.tag()) {
          case 1 -> key = e.string();
          case 2 -> value = e.bytes();
          default -> e.skip();
        }
      }
      return Map.entry(key, value);
    }

    void skip() {
      switch (wireType) {
        case 0 -> varint();
        case 1 -> pos += 8;
        case 2 -> bytes();
        case 5 -> pos += 4;
        default -> throw new IllegalArgumentException("protobuf wire type " + wireType);
      }
    }
  }
}
