package dev.baton.operator.routing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The rules a real API server applies to the Services and EndpointSlices Baton writes (Kubernetes
 * API validation for discovery.k8s.io/v1 and core/v1), checked here since the mock server applies
 * none of them. Each problem is a sentence; none means the server would accept the object.
 */
final class KubernetesRules {

  private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  private static final Pattern LABEL_NAME =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern IANA_SVC_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?");
  private static final Set<String> PROTOCOLS = Set.of("TCP", "UDP", "SCTP");

  private KubernetesRules() {}

  static List<String> endpointSliceProblems(EndpointSlice slice) {
    List<String> out = new ArrayList<>();
    metadata(slice, DNS1123_SUBDOMAIN, 253, out);
    String type = slice.getAddressType();
    if (!Set.of("IPv4", "IPv6", "FQDN").contains(type)) {
      out.add("addressType " + type + " is not IPv4, IPv6 or FQDN");
    }
    List<Endpoint> endpoints = slice.getEndpoints() == null ? List.of() : slice.getEndpoints();
    if (endpoints.size() > 1000) {
      out.add("more than 1000 endpoints");
    }
    for (Endpoint e : endpoints) {
      if (e.getAddresses() == null || e.getAddresses().isEmpty() || e.getAddresses().size() > 100) {
        out.add("an endpoint needs 1 to 100 addresses");
        continue;
      }
      for (String a : e.getAddresses()) {
        if (!isAddress(a, type)) {
          out.add("address " + a + " is not an " + type + " address");
        }
      }
      if (e.getNodeName() != null && !DNS1123_SUBDOMAIN.matcher(e.getNodeName()).matches()) {
        out.add("nodeName " + e.getNodeName() + " is not a DNS subdomain");
      }
      if (e.getTargetRef() != null
          && (e.getTargetRef().getKind() == null || e.getTargetRef().getName() == null)) {
        out.add("targetRef needs a kind and a name");
      }
    }
    List<EndpointPort> ports = slice.getPorts() == null ? List.of() : slice.getPorts();
    if (ports.size() > 100) {
      out.add("more than 100 ports");
    }
    Set<String> names = new HashSet<>();
    for (EndpointPort p : ports) {
      String name = p.getName() == null ? "" : p.getName();
      if (!name.isEmpty() && (name.length() > 63 || !DNS1123_LABEL.matcher(name).matches())) {
        out.add("port name " + name + " is not a DNS label");
      }
      if (!names.add(name)) {
        out.add("port name '" + name + "' is used twice");
      }
      if (p.getProtocol() != null && !PROTOCOLS.contains(p.getProtocol())) {
        out.add("protocol " + p.getProtocol() + " is not TCP, UDP or SCTP");
      }
      if (p.getPort() != null && (p.getPort() < 1 || p.getPort() > 65535)) {
        out.add("port " + p.getPort() + " is out of range");
      }
    }
    return out;
  }

  static List<String> serviceProblems(Service svc) {
    List<String> out = new ArrayList<>();
    metadata(svc, DNS1035_LABEL, 63, out);
    List<ServicePort> ports = svc.getSpec().getPorts();
    if (ports == null || ports.isEmpty()) {
      out.add("a Service needs a port");
      return out;
    }
    Set<String> names = new HashSet<>();
    for (ServicePort p : ports) {
      String name = p.getName() == null ? "" : p.getName();
      if (ports.size() > 1 && name.isEmpty()) {
        out.add("every port needs a name when there are several");
      }
      if (!name.isEmpty() && (name.length() > 63 || !DNS1123_LABEL.matcher(name).matches())) {
        out.add("port name " + name + " is not a DNS label");
      }
      if (!names.add(name)) {
        out.add("port name '" + name + "' is used twice");
      }
      if (p.getPort() == null || p.getPort() < 1 || p.getPort() > 65535) {
        out.add("port " + p.getPort() + " is out of range");
      }
      if (p.getProtocol() != null && !PROTOCOLS.contains(p.getProtocol())) {
        out.add("protocol " + p.getProtocol() + " is not TCP, UDP or SCTP");
      }
      var t = p.getTargetPort();
      if (t != null && t.getStrVal() != null) {
        String s = t.getStrVal();
        if (s.length() > 15
            || !IANA_SVC_NAME.matcher(s).matches()
            || s.contains("--")
            || !s.matches(".*[a-z].*")) {
          out.add("targetPort " + s + " is not a port name");
        }
      } else if (t != null && (t.getIntVal() < 1 || t.getIntVal() > 65535)) {
        out.add("targetPort " + t.getIntVal() + " is out of range");
      }
    }
    return out;
  }

  private static void metadata(HasMetadata o, Pattern name, int max, List<String> out) {
    String n = o.getMetadata().getName();
    if (n == null || n.length() > max || !name.matcher(n).matches()) {
      out.add("name " + n + " is not valid");
    }
    if (o.getMetadata().getLabels() != null) {
      o.getMetadata()
          .getLabels()
          .forEach(
              (k, v) -> {
                int slash = k.indexOf('/');
                String prefix = slash < 0 ? null : k.substring(0, slash);
                String local = slash < 0 ? k : k.substring(slash + 1);
                if (local.length() > 63
                    || !LABEL_NAME.matcher(local).matches()
                    || prefix != null
                        && (prefix.length() > 253
                            || !DNS1123_SUBDOMAIN.matcher(prefix).matches())) {
                  out.add("label key " + k + " is not valid");
                }
                if (v.length() > 63 || !LABEL_VALUE.matcher(v).matches()) {
                  out.add("label value " + v + " is not valid");
                }
              });
    }
    if (o.getMetadata().getOwnerReferences() != null) {
      o.getMetadata()
          .getOwnerReferences()
          .forEach(
              r -> {
                if (r.getApiVersion() == null
                    || r.getKind() == null
                    || r.getName() == null
                    || r.getUid() == null
                    || r.getUid().isEmpty()) {
                  out.add("an owner reference needs apiVersion, kind, name and uid");
                }
              });
    }
  }

  private static boolean isAddress(String a, String type) {
    boolean v4 = a.matches("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    if ("IPv4".equals(type)) {
      if (!v4) {
        return false;
      }
      for (String part : a.split("\\.")) {
        if (Integer.parseInt(part) > 255) {
          return false;
        }
      }
      return true;
    }
    if ("IPv6".equals(type)) {
      if (!a.contains(":") || !a.matches("[0-9a-fA-F:.]+")) {
        return false;
      }
      try {
        return InetAddress.getByName(a).getAddress().length == 16;
      } catch (Exception e) {
        return false;
      }
    }
    return true;
  }
}
