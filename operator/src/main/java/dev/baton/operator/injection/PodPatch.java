package dev.baton.operator.injection;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON patch (RFC 6902) that adds the agent to a pod, computed from the pod as the API server
 * sent it, never from a typed copy: a model class fills absent lists and maps in, and an {@code
 * add} below a list the server's object lacks is refused (docs/design.md, "Injection"). So a list
 * that is absent is added whole, and one that is there is added to. Also the port and name checks
 * that the API server's validation would refuse the patched pod on, made first so the refusal names
 * the annotation to change.
 */
final class PodPatch {

  private static final ObjectMapper JSON = Serialization.jsonMapper();

  private PodPatch() {}

  /** The operations, in order. */
  static ArrayNode of(JsonNode pod, Container agent, Volume token, boolean nativeSidecar) {
    ArrayNode ops = JSON.createArrayNode();
    JsonNode spec = pod.path("spec");
    JsonNode agentJson = JSON.valueToTree(agent);
    if (nativeSidecar) {
      // First of the init containers: up before any other, and before the app.
      if (spec.path("initContainers").isArray()) {
        add(ops, "/spec/initContainers/0", agentJson);
      } else {
        add(ops, "/spec/initContainers", JSON.createArrayNode().add(agentJson));
      }
    } else {
      add(ops, "/spec/containers/-", agentJson);
    }
    JsonNode volumeJson = JSON.valueToTree(token);
    if (spec.path("volumes").isArray()) {
      add(ops, "/spec/volumes/-", volumeJson);
    } else {
      add(ops, "/spec/volumes", JSON.createArrayNode().add(volumeJson));
    }
    return ops;
  }

  private static void add(ArrayNode ops, String path, JsonNode value) {
    ObjectNode op = ops.addObject();
    op.put("op", "add").put("path", path).set("value", value);
  }

  /** Whether a container or init container of the pod is already the agent. */
  static boolean hasAgent(JsonNode pod) {
    return containers(pod).stream()
        .anyMatch(c -> AgentNames.CONTAINER.equals(c.path("name").asText()));
  }

  /**
   * Why the agent's ports cannot go into this pod, naming the annotation to change; null when they
   * can. The agent binds its gate, leader-only and probes ports on every interface and its API on
   * 127.0.0.1:4040, and the pod's containers share one network namespace: a port another container
   * declares would be taken twice.
   */
  static String clash(JsonNode pod, AgentOptions o) {
    String[] names = {AgentNames.GATE_PORT, AgentNames.LEADER_ONLY_PORT, AgentNames.HEALTH_PORT};
    int[] ports = {o.gatePort(), o.relay() ? o.leaderOnlyPort() : -1, o.healthPort()};
    String clash = ownClash(names, ports, o.appPort());
    if (clash == null) {
      clash = containersClash(pod, names, ports);
    }
    if (clash == null && hasVolume(pod, AgentNames.TOKEN_VOLUME)) {
      clash =
          "the pod already has a volume named "
              + AgentNames.TOKEN_VOLUME
              + ", which the agent's token uses; rename it";
    }
    return clash;
  }

  /** The agent's ports (-1: not used) among themselves, its API port and the app's. */
  private static String ownClash(String[] names, int[] ports, int appPort) {
    for (int i = 0; i < ports.length; i++) {
      if (ports[i] < 0) {
        continue;
      }
      for (int j = 0; j < i; j++) {
        if (ports[i] == ports[j]) {
          return names[i]
              + " and "
              + names[j]
              + " are both "
              + ports[i]
              + "; give each agent port a number of its own";
        }
      }
      if (ports[i] == AgentNames.API_PORT) {
        return names[i] + ": " + ports[i] + " is the agent's local API port; choose another port";
      }
      if (ports[i] == appPort) {
        return names[i]
            + " and "
            + AgentNames.APP_PORT
            + " are both "
            + ports[i]
            + ": the gate listens on its own port and forwards to the app's; give them different"
            + " numbers";
      }
    }
    if (appPort == AgentNames.API_PORT) {
      return AgentNames.APP_PORT + ": 4040 is the agent's local API port; move the app to another";
    }
    return null;
  }

  /** A port the pod's containers declare that the agent would take too. */
  private static String containersClash(JsonNode pod, String[] names, int[] ports) {
    for (JsonNode c : containers(pod)) {
      for (JsonNode p : c.path("ports")) {
        int declared = p.path("containerPort").asInt(-1);
        for (int i = 0; i < ports.length; i++) {
          if (ports[i] >= 0 && ports[i] == declared) {
            return names[i]
                + ": port "
                + declared
                + " is already container "
                + c.path("name").asText()
                + "'s port; set "
                + names[i]
                + " to a free port (and a Service's targetPort to it), or move that container's"
                + " port";
          }
        }
        if (declared == AgentNames.API_PORT) {
          return "container "
              + c.path("name").asText()
              + " declares port 4040, the agent's local API port on 127.0.0.1; move it, or leave"
              + " the label "
              + AgentNames.LABEL
              + " off this pod";
        }
      }
    }
    return null;
  }

  private static boolean hasVolume(JsonNode pod, String name) {
    for (JsonNode v : pod.path("spec").path("volumes")) {
      if (name.equals(v.path("name").asText())) {
        return true;
      }
    }
    return false;
  }

  private static List<JsonNode> containers(JsonNode pod) {
    List<JsonNode> out = new ArrayList<>();
    pod.path("spec").path("initContainers").forEach(out::add);
    pod.path("spec").path("containers").forEach(out::add);
    return out;
  }
}
