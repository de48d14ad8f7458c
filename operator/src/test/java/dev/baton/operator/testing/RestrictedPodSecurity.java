package dev.baton.operator.testing;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The Pod Security Standards' {@code restricted} level, as the PodSecurity admission plugin checks
 * it (latest): every container, init container included, runs as non-root, with no privilege
 * escalation, every capability dropped (NET_BIND_SERVICE alone may be added back), and the
 * runtime's seccomp profile or a local one; no host namespaces, ports or paths; volumes of the
 * restricted types only. Plus this project's own rule: no service account token in the pod unless
 * {@code tokenNeeded} (the app talks to the API itself); an injected agent mounts its own.
 */
public final class RestrictedPodSecurity {

  private static final Set<String> SECCOMP = Set.of("RuntimeDefault", "Localhost");

  private RestrictedPodSecurity() {}

  /** Empty when the pod passes. */
  public static List<String> violations(PodSpec spec, boolean tokenNeeded) {
    List<String> out = new ArrayList<>();
    PodSecurityContext pod =
        spec.getSecurityContext() == null ? new PodSecurityContext() : spec.getSecurityContext();
    if (Boolean.TRUE.equals(spec.getHostNetwork())
        || Boolean.TRUE.equals(spec.getHostPID())
        || Boolean.TRUE.equals(spec.getHostIPC())) {
      out.add("host namespaces (hostNetwork, hostPID, hostIPC) must not be used");
    }
    for (Volume v : spec.getVolumes() == null ? List.<Volume>of() : spec.getVolumes()) {
      boolean allowed =
          v.getConfigMap() != null
              || v.getSecret() != null
              || v.getEmptyDir() != null
              || v.getProjected() != null
              || v.getDownwardAPI() != null
              || v.getPersistentVolumeClaim() != null
              || v.getCsi() != null
              || v.getEphemeral() != null;
      if (!allowed) {
        out.add(
            "volume " + v.getName() + " is of a type restricted does not allow (hostPath, ...)");
      }
    }
    if (pod.getRunAsUser() != null && pod.getRunAsUser() == 0) {
      out.add("securityContext.runAsUser must not be 0");
    }
    if (pod.getSysctls() != null && !pod.getSysctls().isEmpty()) {
      out.add("securityContext.sysctls: only the safe set is allowed; this checker allows none");
    }
    boolean tokenMounted = !Boolean.FALSE.equals(spec.getAutomountServiceAccountToken());
    if (tokenMounted && !tokenNeeded) {
      out.add(
          "automountServiceAccountToken must be false: the app containers get an API token they"
              + " do not need");
    }
    List<Container> all = new ArrayList<>();
    if (spec.getInitContainers() != null) {
      all.addAll(spec.getInitContainers());
    }
    all.addAll(spec.getContainers());
    for (Container c : all) {
      container(c, pod, out);
    }
    return out;
  }

  private static void container(Container c, PodSecurityContext pod, List<String> out) {
    String at = "container " + c.getName() + ": ";
    SecurityContext sc =
        c.getSecurityContext() == null ? new SecurityContext() : c.getSecurityContext();
    if (Boolean.TRUE.equals(sc.getPrivileged())) {
      out.add(at + "privileged");
    }
    if (!Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation())) {
      out.add(at + "allowPrivilegeEscalation must be false");
    }
    Capabilities caps = sc.getCapabilities();
    if (caps == null || caps.getDrop() == null || !caps.getDrop().contains("ALL")) {
      out.add(at + "capabilities.drop must include ALL");
    }
    if (caps != null
        && caps.getAdd() != null
        && caps.getAdd().stream().anyMatch(a -> !a.equals("NET_BIND_SERVICE"))) {
      out.add(at + "capabilities.add may hold NET_BIND_SERVICE only");
    }
    Boolean nonRoot = sc.getRunAsNonRoot() != null ? sc.getRunAsNonRoot() : pod.getRunAsNonRoot();
    if (!Boolean.TRUE.equals(nonRoot)) {
      out.add(at + "runAsNonRoot must be true (in the container or the pod)");
    }
    if (sc.getRunAsUser() != null && sc.getRunAsUser() == 0) {
      out.add(at + "runAsUser must not be 0");
    }
    SeccompProfile seccomp =
        sc.getSeccompProfile() != null ? sc.getSeccompProfile() : pod.getSeccompProfile();
    if (seccomp == null || !SECCOMP.contains(seccomp.getType())) {
      out.add(at + "seccompProfile.type must be RuntimeDefault or Localhost (container or pod)");
    }
    if (c.getPorts() != null
        && c.getPorts().stream().anyMatch(p -> p.getHostPort() != null && p.getHostPort() != 0)) {
      out.add(at + "hostPort must not be used");
    }
  }
}
