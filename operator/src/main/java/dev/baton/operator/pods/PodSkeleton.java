package dev.baton.operator.pods;

import dev.baton.client.BatonNames;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the operator keeps of a pod a group or lock cares about (docs/design.md, "A cache the size
 * of what matters"): the fields it reads, nothing else. A real pod's spec, managedFields and status
 * are many kilobytes, so the rest is dropped as the pod enters the {@link PodStore}; every other
 * pod is kept as a {@link CompactPod} of the same fields. Writes never send a cached pod back
 * (PodLabeler patches), so nothing dropped here can be lost.
 */
public final class PodSkeleton {

  /** The label a pod asks for the agent with (injection's AgentNames, which depends on this). */
  public static final String AGENT_LABEL = "baton.dev/agent";

  /** The injected agent's container name. */
  public static final String AGENT_CONTAINER = "baton-agent";

  private PodSkeleton() {}

  private static boolean isAgent(Container c) {
    return AGENT_CONTAINER.equals(c.getName());
  }

  /** A copy with only what the operator reads; the original is left as it is. */
  public static Pod of(Pod pod) {
    ObjectMeta m = pod.getMetadata();
    Pod out = new Pod();
    out.setApiVersion(pod.getApiVersion());
    out.setKind(pod.getKind());
    out.setMetadata(
        new ObjectMetaBuilder()
            .withName(m.getName())
            .withNamespace(shared(m.getNamespace()))
            .withUid(m.getUid())
            .withResourceVersion(m.getResourceVersion())
            .withCreationTimestamp(m.getCreationTimestamp())
            .withDeletionTimestamp(m.getDeletionTimestamp())
            .withLabels(sharedKeysAndValues(m.getLabels()))
            .withAnnotations(ours(m.getAnnotations()))
            .build());
    if (pod.getSpec() != null) {
      out.setSpec(spec(pod.getSpec(), m.getLabels()));
    }
    if (pod.getStatus() != null) {
      out.setStatus(status(pod.getStatus()));
    }
    shrink(out.getMetadata());
    shrink(out.getSpec());
    shrink(out.getStatus());
    if (out.getSpec() != null && out.getSpec().getContainers() != null) {
      out.getSpec().getContainers().forEach(PodSkeleton::shrink);
    }
    if (out.getSpec() != null && out.getSpec().getInitContainers() != null) {
      out.getSpec().getInitContainers().forEach(PodSkeleton::shrink);
    }
    return out;
  }

  /** Node, the ports of containers that have some, the agent's image, and its pod's account. */
  private static PodSpec spec(PodSpec spec, Map<String, String> labels) {
    PodSpec s = new PodSpec();
    s.setNodeName(spec.getNodeName());
    if (spec.getContainers() != null) {
      List<Container> containers = new ArrayList<>(spec.getContainers().size());
      for (Container c : spec.getContainers()) {
        if (c.getPorts() == null || c.getPorts().isEmpty()) {
          continue;
        }
        // Names and ports only: a one-write Service resolves its named target ports here. The
        // agent's image too, which tells a pod whose agent is not this operator's.
        containers.add(
            new ContainerBuilder()
                .withName(c.getName())
                .withImage(isAgent(c) ? c.getImage() : null)
                .withPorts(c.getPorts())
                .build());
      }
      s.setContainers(containers);
    }
    if (spec.getInitContainers() != null) {
      // Of the init containers, only the agent as a native sidecar: its name and image.
      for (Container c : spec.getInitContainers()) {
        if (isAgent(c)) {
          s.setInitContainers(
              new ArrayList<>(
                  List.of(
                      new ContainerBuilder()
                          .withName(c.getName())
                          .withImage(c.getImage())
                          .build())));
        }
      }
    }
    if (labels != null && labels.containsKey(AGENT_LABEL)) {
      // Whom the agent's Role is bound to.
      s.setServiceAccountName(shared(spec.getServiceAccountName()));
    }
    return s;
  }

  /** Phase, IP and the Ready condition. */
  private static PodStatus status(PodStatus status) {
    PodStatus s = new PodStatus();
    s.setPhase(shared(status.getPhase()));
    s.setPodIP(status.getPodIP());
    if (status.getConditions() != null) {
      List<PodCondition> ready = new ArrayList<>(1);
      for (PodCondition c : status.getConditions()) {
        if ("Ready".equals(c.getType())) {
          ready.add(
              new PodConditionBuilder().withType(c.getType()).withStatus(c.getStatus()).build());
        }
      }
      s.setConditions(ready);
    }
    return s;
  }

  /**
   * One instance per distinct value for strings that repeat across thousands of pods (namespaces,
   * label keys and most label values, phases): each pod would otherwise hold its own copies.
   */
  private static String shared(String s) {
    return s == null ? null : s.intern();
  }

  private static Map<String, String> sharedKeysAndValues(Map<String, String> labels) {
    if (labels == null || labels.isEmpty()) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>(labels.size() * 2);
    labels.forEach((k, v) -> out.put(shared(k), shared(v)));
    return out;
  }

  /**
   * Fabric8's model objects start with an empty list or map in every collection field; a skeleton
   * keeps thirty of them per pod for nothing. Each empty one is set to null (what a decoder would
   * leave for an absent field), through the setters found once per class.
   */
  static void shrink(Object model) {
    if (model == null) {
      return;
    }
    for (Accessor a : ACCESSORS.get(model.getClass())) {
      try {
        Object value = (Object) a.getter().invokeExact(model);
        if (value instanceof java.util.Collection<?> c && c.isEmpty()
            || value instanceof Map<?, ?> m && m.isEmpty() && !a.keepEmpty()) {
          a.setter().invokeExact(model, (Object) null);
        }
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * Method handles, not {@link Method#invoke}: on Java 17, reflection generates one accessor class
   * per method after its 15th call, and the first pod updates after startup (a failover's) would
   * pay for a hundred of them. Handles of the same shape share their code.
   */
  private record Accessor(MethodHandle getter, MethodHandle setter, boolean keepEmpty) {}

  private static final MethodType GETTER = MethodType.methodType(Object.class, Object.class);
  private static final MethodType SETTER =
      MethodType.methodType(void.class, Object.class, Object.class);

  private static final ClassValue<List<Accessor>> ACCESSORS =
      new ClassValue<>() {
        @Override
        protected List<Accessor> computeValue(Class<?> type) {
          List<Accessor> out = new ArrayList<>();
          for (Method setter : type.getMethods()) {
            Class<?>[] params = setter.getParameterTypes();
            if (!setter.getName().startsWith("set")
                || params.length != 1
                || !(List.class.equals(params[0]) || Map.class.equals(params[0]))
                || setter.getName().equals("setAdditionalProperties")) {
              continue;
            }
            try {
              Method getter = type.getMethod("get" + setter.getName().substring(3));
              // An empty annotation map means "has annotations, none of ours" (see ours()).
              boolean keepEmpty = setter.getName().equals("setAnnotations");
              MethodHandles.Lookup lookup = MethodHandles.publicLookup();
              out.add(
                  new Accessor(
                      lookup.unreflect(getter).asType(GETTER),
                      lookup.unreflect(setter).asType(SETTER),
                      keepEmpty));
            } catch (NoSuchMethodException e) {
              // a setter without a getter is not a field
            } catch (IllegalAccessException e) {
              throw new IllegalStateException(e);
            }
          }
          return out;
        }
      };

  /**
   * Whether an update changed anything the operator reads: container restarts, probes' timestamps
   * and other status churn of a pod wake no reconcile.
   */
  public static boolean changesWhatMatters(Pod now, Pod before) {
    if (before == null || now == null) {
      return true;
    }
    Pod a = of(now);
    Pod b = of(before);
    a.getMetadata().setResourceVersion(null);
    b.getMetadata().setResourceVersion(null);
    return !a.equals(b);
  }

  /**
   * Baton's own annotations and the deletion cost it sets; others can be large and are unread. A
   * pod with annotations but none of these gets an empty map, not null, so null still means the pod
   * has no annotations at all (PodLabeler adds the map whole only then).
   */
  private static Map<String, String> ours(Map<String, String> annotations) {
    if (annotations == null || annotations.isEmpty()) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (var e : annotations.entrySet()) {
      if (BatonNames.isBatonKey(e.getKey())
          || e.getKey().equals(BatonNames.DELETION_COST_ANNOTATION)) {
        out.put(e.getKey(), e.getValue());
      }
    }
    return out;
  }
}
