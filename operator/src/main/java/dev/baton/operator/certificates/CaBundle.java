package dev.baton.operator.certificates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The caBundle of the MutatingWebhookConfiguration the chart renders: what the API server trusts
 * when it calls the webhook. It only ever grows by the CAs the Secret holds, and loses a CA only
 * once that CA has expired: a replica that read the Secret before a rotation never takes the new CA
 * out again, so both replicas' certificates stay trusted through it.
 */
final class CaBundle {

  private static final Logger log = LoggerFactory.getLogger(CaBundle.class);

  static final ResourceDefinitionContext WEBHOOKS =
      new ResourceDefinitionContext.Builder()
          .withGroup("admissionregistration.k8s.io")
          .withVersion("v1")
          .withKind("MutatingWebhookConfiguration")
          .withPlural("mutatingwebhookconfigurations")
          .withNamespaced(false)
          .build();

  private final KubernetesClient client;
  private final String name;
  private boolean missingLogged;

  /**
   * @param name the configuration, or null when none is kept (the webhook registered by hand)
   */
  CaBundle(KubernetesClient client, String name) {
    this.client = client;
    this.name = name;
  }

  /**
   * Makes the caBundle hold the CA (and the one before, while valid), patching it when it does not.
   * True when it holds the current CA afterwards; false when the configuration is missing or could
   * not be written, and the current CA may not be trusted yet.
   */
  boolean holds(CaSecret.Authority ca, Instant now) {
    if (name == null) {
      return true;
    }
    GenericKubernetesResource config;
    try {
      config = client.genericKubernetesResources(WEBHOOKS).withName(name).get();
    } catch (RuntimeException e) {
      log.warn("Could not read MutatingWebhookConfiguration {}: {}", name, e.getMessage());
      return false;
    }
    if (config == null) {
      if (!missingLogged) {
        log.warn(
            "MutatingWebhookConfiguration {} does not exist: no caBundle to keep, so the API server"
                + " calls no Baton webhook",
            name);
        missingLogged = true;
      }
      return false;
    }
    missingLogged = false;
    JsonNode webhooks = Serialization.jsonMapper().valueToTree(config).path("webhooks");
    ArrayNode ops = Serialization.jsonMapper().createArrayNode();
    for (int i = 0; i < webhooks.size(); i++) {
      JsonNode webhook = webhooks.get(i);
      String had = webhook.path("clientConfig").path("caBundle").asText("");
      String wanted = wanted(had, ca, now);
      if (!wanted.equals(had)) {
        ops.addObject()
            .put("op", "test")
            .put("path", "/webhooks/" + i + "/name")
            .put("value", webhook.path("name").asText());
        ops.addObject()
            .put("op", "add")
            .put("path", "/webhooks/" + i + "/clientConfig/caBundle")
            .put("value", wanted);
      }
    }
    if (ops.isEmpty()) {
      return true;
    }
    try {
      client
          .genericKubernetesResources(WEBHOOKS)
          .withName(name)
          .patch(PatchContext.of(PatchType.JSON), ops.toString());
      log.info("caBundle of MutatingWebhookConfiguration {} updated", name);
      return true;
    } catch (RuntimeException e) {
      log.warn("Could not update the caBundle of {}: {}", name, e.getMessage());
      return false;
    }
  }

  /**
   * The base64 PEM bundle: the current CA first, then every other CA of the bundle or the Secret
   * that has not expired. Unchanged text when it already holds exactly those.
   */
  static String wanted(String had, CaSecret.Authority ca, Instant now) {
    List<X509Certificate> before = parse(had);
    List<X509Certificate> keep = new ArrayList<>();
    keep.add(ca.current().certificate());
    List<X509Certificate> others = new ArrayList<>(before);
    if (ca.previous() != null) {
      others.add(ca.previous());
    }
    for (X509Certificate c : others) {
      boolean valid = c.getNotAfter().toInstant().isAfter(now);
      if (valid && keep.stream().noneMatch(k -> Certificates.same(k, c))) {
        keep.add(c);
      }
    }
    if (before.size() == keep.size()
        && keep.stream().allMatch(k -> before.stream().anyMatch(b -> Certificates.same(b, k)))) {
      return had;
    }
    StringBuilder pem = new StringBuilder();
    keep.forEach(c -> pem.append(Certificates.pem(c)));
    return Base64.getEncoder().encodeToString(pem.toString().getBytes(StandardCharsets.US_ASCII));
  }

  private static List<X509Certificate> parse(String base64) {
    if (base64 == null || base64.isBlank()) {
      return List.of();
    }
    try {
      return Certificates.certificates(
          new String(Base64.getDecoder().decode(base64.trim()), StandardCharsets.US_ASCII));
    } catch (IllegalArgumentException e) {
      return List.of();
    }
  }
}
