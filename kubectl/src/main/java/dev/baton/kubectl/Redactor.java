package dev.baton.kubectl;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes every secret value out of what goes into a support bundle, in two ways. Values it knows:
 * every value of the Secrets the group, its pods and the operator use (read from the API when the
 * user may), in the forms they travel in (as they are, base64, URL-encoded, each line of a
 * multi-line value), replaced wherever they appear, in objects and logs alike. Values it can guess:
 * the password of a URL ({@code scheme://user:password@host}), {@code password=...}-like pairs in
 * logs, the literal value of an environment variable whose name says it is secret, and the
 * last-applied-configuration annotation, which copies whatever was applied.
 */
final class Redactor {

  static final String MARK = "<redacted>";

  /** Names of variables and keys that hold secrets. */
  private static final Pattern SECRET_NAME =
      Pattern.compile(
          "(?i).*(password|passwd|secret|token|credential|api_?key|private_?key|auth).*");

  private static final Pattern URL_PASSWORD =
      Pattern.compile("([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\\s\"']*:)([^@/\\s\"']+)(@)");

  private static final Pattern PAIR =
      Pattern.compile(
          "(?i)((?:password|passwd|secret|token|api_?key)[\"']?\\s*[=:]\\s*[\"']?)([^\\s\"',;}]+)");

  /** Values shorter than this are not looked for: they would mark ordinary words. */
  private static final int SHORTEST = 4;

  private final Set<String> known = new LinkedHashSet<>();

  /** Learns a secret value, in every form it may travel in. */
  void learn(String value) {
    if (value == null || value.length() < SHORTEST) {
      return;
    }
    add(value);
    add(Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)));
    add(URLEncoder.encode(value, StandardCharsets.UTF_8));
    for (String line : value.split("\\R")) {
      if (line.strip().length() >= 16) {
        add(line.strip());
      }
    }
    Matcher url = URL_PASSWORD.matcher(value);
    while (url.find()) {
      add(url.group(2));
    }
  }

  /** Learns every value of a Secret's data (base64, as the API returns it). */
  void learnSecret(Map<String, String> data, Map<String, String> stringData) {
    if (data != null) {
      data.values().forEach(v -> learn(decode(v)));
    }
    if (stringData != null) {
      stringData.values().forEach(this::learn);
    }
  }

  /** Learns the literal values of a pod's secret-named variables, before they are replaced. */
  void learnLiterals(Pod pod) {
    if (pod.getSpec() == null) {
      return;
    }
    List<Container> all = new ArrayList<>(pod.getSpec().getContainers());
    all.addAll(pod.getSpec().getInitContainers());
    for (Container c : all) {
      for (EnvVar e : c.getEnv()) {
        if (e.getValue() != null && SECRET_NAME.matcher(e.getName()).matches()) {
          learn(e.getValue());
        }
      }
    }
  }

  private void add(String form) {
    if (form.length() >= SHORTEST) {
      known.add(form);
    }
  }

  /** The text with every known value and every guessed one replaced. */
  String scrub(String text) {
    if (text == null) {
      return "";
    }
    List<String> longestFirst = new ArrayList<>(known);
    longestFirst.sort(Comparator.comparingInt(String::length).reversed());
    String out = text;
    for (String value : longestFirst) {
      out = out.replace(value, MARK);
    }
    out = URL_PASSWORD.matcher(out).replaceAll("$1" + Matcher.quoteReplacement(MARK) + "$3");
    return PAIR.matcher(out).replaceAll("$1" + Matcher.quoteReplacement(MARK));
  }

  /**
   * An object made fit for the bundle before it is written: no managed fields, no
   * last-applied-configuration, and a pod's literal secret-named variables replaced.
   */
  static <T extends HasMetadata> T sanitized(T object) {
    object.getMetadata().setManagedFields(null);
    if (object.getMetadata().getAnnotations() != null) {
      object
          .getMetadata()
          .getAnnotations()
          .remove("kubectl.kubernetes.io/last-applied-configuration");
    }
    if (object instanceof Pod pod && pod.getSpec() != null) {
      List<Container> all = new ArrayList<>(pod.getSpec().getContainers());
      all.addAll(pod.getSpec().getInitContainers());
      for (Container c : all) {
        for (EnvVar e : c.getEnv()) {
          if (e.getValue() != null && SECRET_NAME.matcher(e.getName()).matches()) {
            e.setValue(MARK);
          }
        }
      }
    }
    return object;
  }

  private static String decode(String base64) {
    try {
      return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return base64;
    }
  }
}
