package dev.baton.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import dev.baton.api.v1alpha1.RedisLockStatus;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the Fabric8 generator cannot be told by annotations, applied to its output: descriptions of
 * the kinds, spec and status from their {@link JsonClassDescription} (so {@code kubectl explain lg}
 * is not blank at the top), conditions as a list map keyed by type with metav1.Condition's schema
 * (so server-side apply merges them by type), and printer columns in reading order, AGE last (the
 * generator sorts them by JSON path, which puts AGE first).
 */
final class CrdShape implements CRDPostProcessor {

  private record Kind(Class<?> resource, Class<?> spec, Class<?> status, List<String> columns) {}

  private static final Map<String, Kind> KINDS =
      Map.of(
          "leadergroups.baton.dev",
          new Kind(
              LeaderGroup.class,
              LeaderGroupSpec.class,
              LeaderGroupStatus.class,
              List.of(
                  "LEADER",
                  "TERM",
                  "CANDIDATES",
                  "READY",
                  "PAUSED",
                  "ROUTED",
                  "REDIS",
                  "MESSAGE",
                  "AGE")),
          "redislocks.baton.dev",
          new Kind(
              RedisLock.class,
              RedisLockSpec.class,
              RedisLockStatus.class,
              List.of("HOLDER", "TOKEN", "EXPIRES", "READY", "MESSAGE", "AGE")));

  @Override
  public HasMetadata process(HasMetadata resource, String crdSpecVersion) {
    CustomResourceDefinition crd = (CustomResourceDefinition) resource;
    String name = crd.getMetadata().getName();
    Kind kind = KINDS.get(name);
    if (kind == null) {
      throw new IllegalStateException("CrdShape knows nothing of " + name);
    }
    for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
      JSONSchemaProps root = version.getSchema().getOpenAPIV3Schema();
      root.setDescription(description(kind.resource()));
      JSONSchemaProps spec = root.getProperties().get("spec");
      JSONSchemaProps status = root.getProperties().get("status");
      spec.setDescription(description(kind.spec()));
      status.setDescription(description(kind.status()));
      JSONSchemaProps conditions = status.getProperties().get("conditions");
      conditions.setXKubernetesListType("map");
      conditions.setXKubernetesListMapKeys(List.of("type"));
      conditions.setItems(
          new io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsOrArray(
              null, conditionSchema()));
      version.setAdditionalPrinterColumns(ordered(name, version, kind.columns()));
    }
    return crd;
  }

  private static String description(Class<?> type) {
    JsonClassDescription d = type.getAnnotation(JsonClassDescription.class);
    if (d == null) {
      throw new IllegalStateException(type.getSimpleName() + " has no @JsonClassDescription");
    }
    return d.value();
  }

  /** metav1.Condition as Kubernetes publishes it, field for field. */
  static JSONSchemaProps conditionSchema() {
    Map<String, JSONSchemaProps> p = new LinkedHashMap<>();
    p.put(
        "lastTransitionTime",
        string("When the status last changed (RFC 3339).").withFormat("date-time").build());
    p.put("message", string("Why, for humans.").withMaxLength(32768L).build());
    p.put(
        "observedGeneration",
        new JSONSchemaPropsBuilder()
            .withType("integer")
            .withFormat("int64")
            .withMinimum(0.0)
            .withDescription("The metadata.generation the condition was set for.")
            .build());
    p.put(
        "reason",
        string("Why, in one CamelCase word.")
            .withMinLength(1L)
            .withMaxLength(1024L)
            .withPattern("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
            .build());
    p.put(
        "status",
        string("True, False or Unknown.")
            .withEnum(
                List.of(
                    new com.fasterxml.jackson.databind.node.TextNode("True"),
                    new com.fasterxml.jackson.databind.node.TextNode("False"),
                    new com.fasterxml.jackson.databind.node.TextNode("Unknown")))
            .build());
    p.put(
        "type",
        string("The condition's type, in CamelCase: Ready, RedisAvailable, ...")
            .withMaxLength(316L)
            .withPattern(
                "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                    + "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
            .build());
    return new JSONSchemaPropsBuilder()
        .withType("object")
        .withProperties(p)
        .withRequired("lastTransitionTime", "message", "reason", "status", "type")
        .build();
  }

  private static JSONSchemaPropsBuilder string(String description) {
    return new JSONSchemaPropsBuilder().withType("string").withDescription(description);
  }

  private static List<CustomResourceColumnDefinition> ordered(
      String name, CustomResourceDefinitionVersion version, List<String> order) {
    List<CustomResourceColumnDefinition> columns =
        new ArrayList<>(version.getAdditionalPrinterColumns());
    for (CustomResourceColumnDefinition c : columns) {
      if (!order.contains(c.getName())) {
        throw new IllegalStateException(
            "printer column " + c.getName() + " of " + name + " has no place in " + order);
      }
    }
    columns.sort(Comparator.comparingInt(c -> order.indexOf(c.getName())));
    return columns;
  }
}
