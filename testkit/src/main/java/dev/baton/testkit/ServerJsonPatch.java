package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.zjsonpatch.JsonPatch;

/**
 * A JSON patch (RFC 6902) applied to a document as kube-apiserver applies one: operation by
 * operation, each refused as the server refuses it (an add below a parent the document lacks, a
 * remove or replace of a path that is not there, a failed test), where zjsonpatch alone would
 * create the missing parents.
 */
public final class ServerJsonPatch {

  private ServerJsonPatch() {}

  /**
   * @throws IllegalArgumentException with the server's words when an operation does not apply
   */
  public static JsonNode apply(JsonNode doc, JsonNode ops) {
    if (!ops.isArray()) {
      throw new IllegalArgumentException("a JSON patch is an array of operations");
    }
    JsonNode out = doc.deepCopy();
    for (JsonNode op : ops) {
      String refused = StrictPatches.refused(out, op);
      if (refused != null) {
        throw new IllegalArgumentException(refused);
      }
      ArrayNode one = Serialization.jsonMapper().createArrayNode().add(op);
      out = JsonPatch.apply(one, out);
    }
    return out;
  }
}
