package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** A metav1.LabelSelector as JSON, matched against labels as JSON, as the API server matches it. */
final class LabelSelectorMatch {

  private LabelSelectorMatch() {}

  /** An absent or empty selector matches everything. */
  static boolean matches(JsonNode selector, JsonNode labels) {
    var it = selector.path("matchLabels").fields();
    while (it.hasNext()) {
      var e = it.next();
      if (!e.getValue().asText().equals(labels.path(e.getKey()).asText(null))) {
        return false;
      }
    }
    for (JsonNode expr : selector.path("matchExpressions")) {
      String key = expr.path("key").asText();
      boolean present = labels.has(key);
      String value = labels.path(key).asText(null);
      List<String> values = new ArrayList<>();
      expr.path("values").forEach(v -> values.add(v.asText()));
      boolean ok =
          switch (expr.path("operator").asText()) {
            case "In" -> present && values.contains(value);
            case "NotIn" -> !present || !values.contains(value);
            case "Exists" -> present;
            case "DoesNotExist" -> !present;
            default -> false;
          };
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
