package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import java.util.List;
import java.util.Map;

/**
 * The schema the CRDs publish for a label selector (the Java type stays Kubernetes' LabelSelector):
 * the same fields, with the operator of a match expression limited to the four that Kubernetes
 * defines, so the API server refuses any other at apply time.
 */
public final class SelectorSchema {

  private SelectorSchema() {}

  @JsonPropertyDescription("Labels a pod must carry, each with exactly this value.")
  public Map<String, String> matchLabels;

  @JsonPropertyDescription("Requirements on a pod's labels; all must hold.")
  public List<Requirement> matchExpressions;

  /** One requirement of a selector. */
  public static final class Requirement {

    private Requirement() {}

    @Required
    @JsonPropertyDescription("The label key the requirement applies to.")
    public String key;

    @Required
    @JsonPropertyDescription("In, NotIn, Exists or DoesNotExist.")
    public Operator operator;

    @JsonPropertyDescription(
        "Values for In and NotIn (at least one); none for Exists and DoesNotExist.")
    public List<String> values;
  }

  /** The operators of a label selector requirement. */
  public enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist
  }
}
