package dev.baton.operator.kube;

/**
 * The one name bench/ still reads from here; every label and annotation name is in {@link
 * dev.baton.client.BatonNames}, which this file gives way to once bench imports it.
 */
public final class BatonNames {

  public static final String TERM_ANNOTATION = dev.baton.client.BatonNames.TERM_ANNOTATION;

  private BatonNames() {}
}
