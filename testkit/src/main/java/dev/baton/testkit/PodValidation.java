package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What kube-apiserver's validation refuses in a pod being created, for the parts a mutating webhook
 * writes (the mock validates nothing): container names unique among containers and init containers,
 * port names well formed and unique in their container, no container port taken twice by containers
 * that run side by side (containers and native sidecars: the second bind fails at run time, and the
 * server warns of it), volume names unique and every mount naming one, and the native sidecar rules
 * (restartPolicy only on init containers and only Always; probes and lifecycle only on init
 * containers with it). Messages as the server words them.
 */
public final class PodValidation {

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern PORT_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?");

  private PodValidation() {}

  /** Empty when the server would take the pod. */
  public static List<String> errors(JsonNode pod) {
    List<String> errors = new ArrayList<>();
    JsonNode spec = pod.path("spec");
    Set<String> names = new HashSet<>();
    Map<String, String> running = new HashMap<>();
    Set<String> volumes = new HashSet<>();
    int v = 0;
    for (JsonNode volume : spec.path("volumes")) {
      String name = volume.path("name").asText();
      if (!volumes.add(name)) {
        errors.add("spec.volumes[" + v + "].name: Duplicate value: \"" + name + "\"");
      }
      v++;
    }
    for (String list : new String[] {"initContainers", "containers"}) {
      int i = 0;
      for (JsonNode c : spec.path(list)) {
        String at = "spec." + list + "[" + i++ + "]";
        String name = c.path("name").asText();
        if (!DNS_LABEL.matcher(name).matches() || name.length() > 63) {
          errors.add(at + ".name: Invalid value: \"" + name + "\": must be a DNS label");
        } else if (!names.add(name)) {
          errors.add(at + ".name: Duplicate value: \"" + name + "\"");
        }
        boolean sidecar = "Always".equals(c.path("restartPolicy").asText(null));
        sidecarRules(c, at, list.equals("initContainers"), sidecar, errors);
        ports(c, at, list.equals("containers") || sidecar, running, errors);
        int m = 0;
        for (JsonNode mount : c.path("volumeMounts")) {
          String volume = mount.path("name").asText();
          if (!volumes.contains(volume)) {
            errors.add(at + ".volumeMounts[" + m + "].name: Not found: \"" + volume + "\"");
          }
          m++;
        }
      }
    }
    return errors;
  }

  /** restartPolicy only on init containers, Always; probes and lifecycle only on sidecars. */
  private static void sidecarRules(
      JsonNode c, String at, boolean init, boolean sidecar, List<String> errors) {
    if (c.has("restartPolicy")) {
      if (!init) {
        errors.add(at + ".restartPolicy: Forbidden: may not be set for non-init containers");
      } else if (!sidecar) {
        errors.add(
            at
                + ".restartPolicy: Unsupported value: \""
                + c.path("restartPolicy").asText()
                + "\": supported values: \"Always\"");
      }
    }
    if (init && !sidecar) {
      for (String field :
          new String[] {"readinessProbe", "livenessProbe", "startupProbe", "lifecycle"}) {
        if (c.has(field)) {
          errors.add(
              at
                  + "."
                  + field
                  + ": Forbidden: may not be set for init containers without restartPolicy=Always");
        }
      }
    }
  }

  private static void ports(
      JsonNode c, String at, boolean runsBeside, Map<String, String> running, List<String> errors) {
    Set<String> portNames = new HashSet<>();
    int p = 0;
    for (JsonNode port : c.path("ports")) {
      String where = at + ".ports[" + p++ + "]";
      int number = port.path("containerPort").asInt(0);
      if (number < 1 || number > 65535) {
        errors.add(
            where + ".containerPort: Invalid value: " + number + ": must be between 1 and 65535");
      }
      if (port.has("name")) {
        String name = port.path("name").asText();
        if (name.length() > 15
            || !PORT_NAME.matcher(name).matches()
            || name.contains("--")
            || !name.matches(".*[a-z].*")) {
          errors.add(where + ".name: Invalid value: \"" + name + "\": must be an IANA_SVC_NAME");
        } else if (!portNames.add(name)) {
          errors.add(where + ".name: Duplicate value: \"" + name + "\"");
        }
      }
      if (runsBeside) {
        String key = number + "/" + port.path("protocol").asText("TCP");
        String other = running.putIfAbsent(key, where);
        if (other != null) {
          errors.add(where + ": duplicate port definition with " + other);
        }
      }
    }
  }
}
