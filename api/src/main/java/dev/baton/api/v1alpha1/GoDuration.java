package dev.baton.api.v1alpha1;

/**
 * The CRDs' schema for a Go-style duration ("10s", "1m30s", "500ms"), as Kubernetes users write
 * them. The API server refuses anything else; the operator reads what passes with {@code
 * dev.baton.client.GoDuration}, whose grammar contains this one.
 */
public final class GoDuration {

  public static final String PATTERN = "^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$";

  private GoDuration() {}
}
