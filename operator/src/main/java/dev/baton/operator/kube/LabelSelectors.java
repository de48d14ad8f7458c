package dev.baton.operator.kube;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/** Matches labels against a metav1.LabelSelector, the way the API server does. */
public final class LabelSelectors {

  private LabelSelectors() {}

  /** A null selector selects nothing; an empty one ({}) selects everything, as in Kubernetes. */
  public static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    Map<String, String> l = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (var e : selector.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(l.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        if (!matches(r, l)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean matches(LabelSelectorRequirement r, Map<String, String> labels) {
    String value = labels.get(r.getKey());
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    return switch (r.getOperator()) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> labels.containsKey(r.getKey());
      case "DoesNotExist" -> !labels.containsKey(r.getKey());
      default ->
          throw new IllegalArgumentException("unknown selector operator '" + r.getOperator() + "'");
    };
  }

  /**
   * Whether a selector has neither matchLabels nor matchExpressions: Kubernetes reads that as
   * "every pod", which is never what a group of candidates means.
   */
  public static boolean selectsEverything(LabelSelector selector) {
    return selector != null
        && (selector.getMatchLabels() == null || selector.getMatchLabels().isEmpty())
        && (selector.getMatchExpressions() == null || selector.getMatchExpressions().isEmpty());
  }

  /** The label keys a selector looks at, in matchLabels and matchExpressions. */
  public static Set<String> keys(LabelSelector selector) {
    Set<String> out = new TreeSet<>();
    if (selector != null && selector.getMatchLabels() != null) {
      out.addAll(selector.getMatchLabels().keySet());
    }
    if (selector != null && selector.getMatchExpressions() != null) {
      selector.getMatchExpressions().stream()
          .map(LabelSelectorRequirement::getKey)
          .filter(Objects::nonNull)
          .forEach(out::add);
    }
    return out;
  }

  /** Checks a selector's operators and values, returning a message or null when valid. */
  public static String problem(LabelSelector selector) {
    if (selector == null) {
      return "spec.selector is required";
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        String op = r.getOperator();
        boolean needsValues = "In".equals(op) || "NotIn".equals(op);
        boolean noValues = "Exists".equals(op) || "DoesNotExist".equals(op);
        if (!needsValues && !noValues) {
          return "spec.selector: unknown operator '" + op + "' (In, NotIn, Exists, DoesNotExist)";
        }
        boolean hasValues = r.getValues() != null && !r.getValues().isEmpty();
        if (needsValues && !hasValues) {
          return "spec.selector: operator " + op + " on '" + r.getKey() + "' needs values";
        }
        if (noValues && hasValues) {
          return "spec.selector: operator " + op + " on '" + r.getKey() + "' takes no values";
        }
      }
    }
    return null;
  }
}
