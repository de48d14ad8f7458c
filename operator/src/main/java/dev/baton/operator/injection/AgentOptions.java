package dev.baton.operator.injection;

import dev.baton.client.GoDuration;
import dev.baton.client.settings.PortNumber;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a pod asks of its agent, read from its label and annotations; each value that cannot be used
 * is refused with a message naming the annotation and how to fix it.
 *
 * @param confirmWithin null: the agent's default
 * @param cpuLimit null: none
 */
public record AgentOptions(
    String mode,
    int appPort,
    int gatePort,
    int leaderOnlyPort,
    int healthPort,
    String confirmWithin,
    String cpuRequest,
    String memoryRequest,
    String memoryLimit,
    String cpuLimit) {

  /** A pod the webhook cannot inject, and why, in words for the person who wrote it. */
  public static final class Refused extends RuntimeException {
    public Refused(String message) {
      super(message);
    }
  }

  public boolean relay() {
    return AgentNames.RELAY.equals(mode);
  }

  /**
   * @throws Refused when the label's mode is unknown or an annotation is missing or malformed
   */
  public static AgentOptions read(Map<String, String> labels, Map<String, String> annotations) {
    Map<String, String> a = annotations == null ? Map.of() : annotations;
    String mode = labels == null ? null : labels.get(AgentNames.LABEL);
    if (mode == null || !AgentNames.MODES.contains(mode)) {
      throw new Refused(
          "label "
              + AgentNames.LABEL
              + ": '"
              + mode
              + "' is not a mode; set it to gate (the agent gates the app's port) or relay (every"
              + " pod takes connections and relays them to the leader)");
    }
    String app = a.get(AgentNames.APP_PORT);
    if (app == null || app.isBlank()) {
      throw new Refused(
          "annotation "
              + AgentNames.APP_PORT
              + " is required: the port your app listens on, on 127.0.0.1, which the gate forwards"
              + " to (e.g. "
              + AgentNames.APP_PORT
              + ": \"8081\")");
    }
    int appPort = port(AgentNames.APP_PORT, app, 0);
    int gate =
        port(AgentNames.GATE_PORT, a.get(AgentNames.GATE_PORT), AgentNames.DEFAULT_GATE_PORT);
    int leaderOnly =
        port(
            AgentNames.LEADER_ONLY_PORT,
            a.get(AgentNames.LEADER_ONLY_PORT),
            AgentNames.DEFAULT_LEADER_ONLY_PORT);
    int health =
        port(AgentNames.HEALTH_PORT, a.get(AgentNames.HEALTH_PORT), AgentNames.DEFAULT_HEALTH_PORT);
    return new AgentOptions(
        mode,
        appPort,
        gate,
        leaderOnly,
        health,
        confirmWithin(blankToNull(a.get(AgentNames.CONFIRM_WITHIN))),
        quantity(AgentNames.CPU_REQUEST, a, AgentNames.DEFAULT_CPU_REQUEST),
        quantity(AgentNames.MEMORY_REQUEST, a, AgentNames.DEFAULT_MEMORY_REQUEST),
        quantity(AgentNames.MEMORY_LIMIT, a, AgentNames.DEFAULT_MEMORY_LIMIT),
        quantity(AgentNames.CPU_LIMIT, a, null));
  }

  /** The annotation as given, null when absent; refused when not a duration of 100ms or more. */
  private static String confirmWithin(String confirm) {
    if (confirm == null) {
      return null;
    }
    Duration d;
    try {
      d = GoDuration.parse(confirm);
    } catch (IllegalArgumentException e) {
      d = null;
    }
    if (d == null || d.toMillis() < 100) {
      throw new Refused(
          "annotation "
              + AgentNames.CONFIRM_WITHIN
              + ": '"
              + confirm
              + "' is not a duration of at least 100ms; write it as 2s or 1500ms");
    }
    return confirm;
  }

  /** The API server's quantity syntax (resource.Quantity). */
  private static final Pattern QUANTITY =
      Pattern.compile("\\+?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][-+]?[0-9]+)?");

  private static int port(String annotation, String value, int fallback) {
    if (value == null || value.isBlank()) {
      return fallback;
    }
    return PortNumber.parse(value)
        .orElseThrow(
            () ->
                new Refused(
                    "annotation "
                        + annotation
                        + ": '"
                        + value
                        + "' is not a port; give a number from 1 to 65535, quoted (\"8081\")"));
  }

  private static String quantity(String annotation, Map<String, String> a, String fallback) {
    String value = blankToNull(a.get(annotation));
    if (value == null) {
      return fallback;
    }
    if (QUANTITY.matcher(value).matches()) {
      try {
        if (Quantity.getAmountInBytes(new Quantity(value)).signum() > 0) {
          return value;
        }
      } catch (IllegalArgumentException | ArithmeticException e) {
        // refused below
      }
    }
    throw new Refused(
        "annotation "
            + annotation
            + ": '"
            + value
            + "' is not a positive quantity; write it as Kubernetes does (100m, 0.5, 128Mi)");
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
