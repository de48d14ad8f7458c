package dev.baton.testkit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * What the dispatchers that wrap the mock's store share: a JSON request of their own to the store
 * behind them, and the 415 Status a real API server answers for a body it cannot take.
 */
final class StoreRequests {

  private StoreRequests() {}

  /** A JSON request to the store, as a client would send it; {@code body} may be null. */
  static RecordedRequest json(HttpMethod method, String path, String body) {
    Headers headers = Headers.builder().add("Content-Type", "application/json").build();
    Buffer buffer = new Buffer();
    if (body != null) {
      buffer.writeUtf8(body);
    }
    return new RecordedRequest("HTTP/1.1", method, path, headers, buffer);
  }

  /** A Status of reason UnsupportedMediaType, code 415. */
  static MockResponse unsupported(String message) {
    ObjectNode status = Serialization.jsonMapper().createObjectNode();
    status.put("kind", "Status").put("apiVersion", "v1").put("status", "Failure");
    status.put("message", message).put("reason", "UnsupportedMediaType").put("code", 415);
    return new MockResponse()
        .setResponseCode(415)
        .setHeader("Content-Type", "application/json")
        .setBody(status.toString());
  }
}
