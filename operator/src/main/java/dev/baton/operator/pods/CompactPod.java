package dev.baton.operator.pods;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A pod no group or lock selects, as the catalog keeps it (docs/design.md, "A cache the size of
 * what matters"): the same fields as its {@link PodSkeleton}, in plain fields and arrays of shared
 * strings instead of Fabric8's model objects, which carry a map and a dozen empty fields each, and
 * with the values no two pods share {@link Packed}. All told (its strings and map entry too) a
 * skeleton costs about 2.7 KB of heap, this about 0.4 KB. {@link #toPod} gives the skeleton back
 * when a group or lock comes to select the pod.
 */
record CompactPod(
    String apiVersion,
    String kind,
    Object uid,
    Object resourceVersion,
    Object creationTimestamp,
    String deletionTimestamp,
    String[] labels,
    String[] annotations,
    boolean hasSpec,
    String nodeName,
    List<Container> containers,
    List<Container> initContainers,
    String serviceAccountName,
    boolean hasStatus,
    String phase,
    Object podIP,
    String ready) {

  private static final String[] NONE = new String[0];

  /**
   * Containers with ports repeat across every replica of a workload; one list is kept per distinct
   * shape, up to a bound (past it, each pod keeps its own).
   */
  private static final Map<List<Container>, List<Container>> SHAPES = new ConcurrentHashMap<>();

  private static final int MAX_SHAPES = 10_000;

  /** From a skeleton ({@link PodSkeleton#of}); name and namespace are the catalog's keys. */
  static CompactPod of(Pod skeleton) {
    ObjectMeta m = skeleton.getMetadata();
    PodSpec spec = skeleton.getSpec();
    PodStatus status = skeleton.getStatus();
    String ready = null;
    if (status != null && status.getConditions() != null && !status.getConditions().isEmpty()) {
      ready = shared(status.getConditions().get(0).getStatus());
    }
    return new CompactPod(
        shared(skeleton.getApiVersion()),
        shared(skeleton.getKind()),
        Packed.uuid(m.getUid()),
        Packed.number(m.getResourceVersion()),
        Packed.instant(m.getCreationTimestamp()),
        m.getDeletionTimestamp(),
        pairs(m.getLabels()),
        pairs(m.getAnnotations()),
        spec != null,
        spec == null ? null : shared(spec.getNodeName()),
        spec == null || spec.getContainers() == null ? null : shape(spec.getContainers()),
        spec == null || spec.getInitContainers() == null ? null : shape(spec.getInitContainers()),
        spec == null ? null : shared(spec.getServiceAccountName()),
        status != null,
        status == null ? null : shared(status.getPhase()),
        status == null ? null : Packed.ipv4(status.getPodIP()),
        ready);
  }

  /** The skeleton again: a new object each time, so a caller may change it. */
  Pod toPod(String namespace, String name) {
    Pod out = new Pod();
    out.setApiVersion(apiVersion);
    out.setKind(kind);
    ObjectMeta m = new ObjectMeta();
    m.setName(name);
    m.setNamespace(namespace);
    m.setUid(Packed.text(uid));
    m.setResourceVersion(Packed.text(resourceVersion));
    m.setCreationTimestamp(Packed.text(creationTimestamp));
    m.setDeletionTimestamp(deletionTimestamp);
    m.setLabels(map(labels));
    m.setAnnotations(map(annotations));
    PodSkeleton.shrink(m);
    out.setMetadata(m);
    if (hasSpec) {
      PodSpec s = new PodSpec();
      s.setNodeName(nodeName);
      if (containers != null) {
        List<Container> copies = new ArrayList<>(containers.size());
        for (Container c : containers) {
          Container copy = new ContainerBuilder(c).build();
          PodSkeleton.shrink(copy);
          copies.add(copy);
        }
        s.setContainers(copies);
      }
      if (initContainers != null) {
        s.setInitContainers(
            new ArrayList<>(
                initContainers.stream().map(c -> new ContainerBuilder(c).build()).toList()));
        s.getInitContainers().forEach(PodSkeleton::shrink);
      }
      s.setServiceAccountName(serviceAccountName);
      PodSkeleton.shrink(s);
      out.setSpec(s);
    }
    if (hasStatus) {
      PodStatus s = new PodStatus();
      s.setPhase(phase);
      s.setPodIP(Packed.text(podIP));
      if (ready != null) {
        PodCondition c = new PodCondition();
        c.setType("Ready");
        c.setStatus(ready);
        s.setConditions(new ArrayList<>(List.of(c)));
      }
      PodSkeleton.shrink(s);
      out.setStatus(s);
    }
    return out;
  }

  /** The pod's uid as the API server wrote it. */
  String uidText() {
    return Packed.text(uid);
  }

  /** The labels without copying them: what a selector is matched against. */
  Map<String, String> labelView() {
    return labels == null ? Map.of() : new PairMap(labels);
  }

  private static String shared(String s) {
    return s == null ? null : s.intern();
  }

  /**
   * Keys and values alternating, each shared: null for no map, an empty array for an empty map
   * (annotations keep that difference; see PodSkeleton).
   */
  private static String[] pairs(Map<String, String> map) {
    if (map == null) {
      return null;
    }
    if (map.isEmpty()) {
      return NONE;
    }
    String[] out = new String[map.size() * 2];
    int i = 0;
    for (var e : map.entrySet()) {
      out[i++] = shared(e.getKey());
      out[i++] = shared(e.getValue());
    }
    return out;
  }

  private static Map<String, String> map(String[] pairs) {
    if (pairs == null) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>(pairs.length);
    for (int i = 0; i < pairs.length; i += 2) {
      out.put(pairs[i], pairs[i + 1]);
    }
    return out;
  }

  private static List<Container> shape(List<Container> containers) {
    List<Container> known = SHAPES.get(containers);
    if (known != null) {
      return known;
    }
    List<Container> copy = List.copyOf(containers);
    if (SHAPES.size() < MAX_SHAPES) {
      List<Container> raced = SHAPES.putIfAbsent(copy, copy);
      return raced == null ? copy : raced;
    }
    return copy;
  }

  /** A read-only map over alternating keys and values. */
  private static final class PairMap extends AbstractMap<String, String> {
    private final String[] pairs;

    PairMap(String[] pairs) {
      this.pairs = pairs;
    }

    @Override
    public String get(Object key) {
      for (int i = 0; i < pairs.length; i += 2) {
        if (pairs[i].equals(key)) {
          return pairs[i + 1];
        }
      }
      return null;
    }

    @Override
    public boolean containsKey(Object key) {
      for (int i = 0; i < pairs.length; i += 2) {
        if (pairs[i].equals(key)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
      return new AbstractSet<>() {
        @Override
        public Iterator<Entry<String, String>> iterator() {
          return new Iterator<>() {
            private int i;

            @Override
            public boolean hasNext() {
              return i < pairs.length;
            }

            @Override
            public Entry<String, String> next() {
              if (i >= pairs.length) {
                throw new NoSuchElementException();
              }
              var e = new SimpleImmutableEntry<>(pairs[i], pairs[i + 1]);
              i += 2;
              return e;
            }
          };
        }

        @Override
        public int size() {
          return pairs.length / 2;
        }
      };
    }
  }
}
