package dev.baton.operator.injection;

import dev.baton.client.BatonNames;
import java.util.List;

/**
 * The names a pod uses to ask for the agent, and the names the injected agent carries (README, "Any
 * language: the Baton agent"). The opt-in is a label because the API server's {@code
 * objectSelector} selects on labels only: no pod without it is ever sent to the webhook. Its value
 * is the mode, a short word a label value can carry. Everything else is configuration, not
 * identity, and goes in annotations, which may hold any text and select nothing.
 */
public final class AgentNames {

  /** The opt-in label: {@value #GATE} or {@value #RELAY}. */
  public static final String LABEL = BatonNames.AGENT_LABEL;

  public static final String GATE = "gate";
  public static final String RELAY = "relay";
  public static final List<String> MODES = List.of(GATE, RELAY);

  /** The port the app listens on, on 127.0.0.1; the gate forwards to it. Required. */
  public static final String APP_PORT = "baton.dev/app-port";

  /** The gate's port, which the Service targets (default {@value #DEFAULT_GATE_PORT}). */
  public static final String GATE_PORT = "baton.dev/gate-port";

  /** Relay mode's leader-only port (default {@value #DEFAULT_LEADER_ONLY_PORT}). */
  public static final String LEADER_ONLY_PORT = "baton.dev/leader-only-port";

  /** Probes and metrics (default {@value #DEFAULT_HEALTH_PORT}). */
  public static final String HEALTH_PORT = "baton.dev/agent-health-port";

  /** The agent's BATON_AGENT_CONFIRM_WITHIN (default: the agent's own, 2s). */
  public static final String CONFIRM_WITHIN = "baton.dev/confirm-within";

  public static final String CPU_REQUEST = "baton.dev/agent-cpu-request";
  public static final String MEMORY_REQUEST = "baton.dev/agent-memory-request";
  public static final String MEMORY_LIMIT = "baton.dev/agent-memory-limit";
  public static final String CPU_LIMIT = "baton.dev/agent-cpu-limit";

  /** Every annotation the webhook reads. */
  public static final List<String> ANNOTATIONS =
      List.of(
          APP_PORT,
          GATE_PORT,
          LEADER_ONLY_PORT,
          HEALTH_PORT,
          CONFIRM_WITHIN,
          CPU_REQUEST,
          MEMORY_REQUEST,
          MEMORY_LIMIT,
          CPU_LIMIT);

  public static final int DEFAULT_GATE_PORT = 8080;
  public static final int DEFAULT_LEADER_ONLY_PORT = 8082;
  public static final int DEFAULT_HEALTH_PORT = 4041;

  /** The agent's local HTTP API, on loopback (the agent's default BATON_AGENT_LISTEN). */
  public static final int API_PORT = 4040;

  public static final String DEFAULT_CPU_REQUEST = "20m";
  public static final String DEFAULT_MEMORY_REQUEST = "64Mi";
  public static final String DEFAULT_MEMORY_LIMIT = "96Mi";

  /** The injected container's name: what tells a pod that already has the agent. */
  public static final String CONTAINER = BatonNames.AGENT_CONTAINER;

  /** The projected volume that carries the agent's service account token, mounted in it alone. */
  public static final String TOKEN_VOLUME = "baton-agent-token";

  public static final String TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";

  /** The user the image runs as. */
  public static final long IMAGE_USER = 10001;

  private AgentNames() {}
}
