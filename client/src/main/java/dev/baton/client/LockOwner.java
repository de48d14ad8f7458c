package dev.baton.client;

import java.util.Map;

/**
 * Who takes a lock. In a pod, {@link #fromEnvironment()} reads the pod's identity from the downward
 * API, so the operator shows the pod as holder and releases the lock when the pod is gone:
 *
 * <pre>
 * env:
 * - {name: POD_NAMESPACE, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}
 * - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
 * - {name: POD_UID, valueFrom: {fieldRef: {fieldPath: metadata.uid}}}
 * </pre>
 */
public final class LockOwner {

  public static final String POD_NAMESPACE = "POD_NAMESPACE";
  public static final String POD_NAME = "POD_NAME";
  public static final String POD_UID = "POD_UID";

  /** What a part's name may be: it sits in the value's suffix, before a '~'. */
  private static final java.util.regex.Pattern PART =
      java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private final String id;
  private final boolean pod;
  private final String part;

  private LockOwner(String id, boolean pod, String part) {
    this.id = id;
    this.pod = pod;
    this.part = part;
  }

  private LockOwner(String id, boolean pod) {
    this(id, pod, null);
  }

  /**
   * One part of this owner, such as one container or job of a pod: its values carry {@code part} in
   * their suffix ({@code <id>:<part>~<random>}), so that it neither renews nor releases a hold of
   * the owner's other parts, nor they its. The operator still sees the pod (and reaps with it).
   *
   * @throws IllegalArgumentException unless {@code part} is 1 to 128 letters, digits, '.', '_' or
   *     '-'
   */
  public LockOwner part(String part) {
    if (!isPartName(part)) {
      throw new IllegalArgumentException(
          "an owner's part must be 1 to 128 letters, digits, '.', '_' or '-'");
    }
    return new LockOwner(id, pod, part);
  }

  /** Whether {@code name} may name a part ({@link #part}): 1 to 128 of [A-Za-z0-9._-]. */
  public static boolean isPartName(String name) {
    return name != null && PART.matcher(name).matches();
  }

  public static LockOwner pod(String namespace, String name, String uid) {
    String value = LockValues.pod(namespace, name, uid, "x");
    return new LockOwner(value.substring(0, value.length() - 2), true);
  }

  /** The pod this process runs in, from POD_NAMESPACE, POD_NAME and POD_UID. */
  public static LockOwner fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  public static LockOwner fromEnvironment(Map<String, String> env) {
    String ns = env.get(POD_NAMESPACE);
    String name = env.get(POD_NAME);
    String uid = env.get(POD_UID);
    if (blank(ns) || blank(name) || blank(uid)) {
      throw new IllegalStateException(
          POD_NAMESPACE
              + ", "
              + POD_NAME
              + " and "
              + POD_UID
              + " must be set (downward API:"
              + " metadata.namespace, metadata.name, metadata.uid); outside a pod use"
              + " LockOwner.external(id)");
    }
    return pod(ns.trim(), name.trim(), uid.trim());
  }

  /**
   * A holder that is not a pod (a CI job, a laptop). The operator shows the id and never reaps such
   * a lock: it only expires.
   */
  public static LockOwner external(String id) {
    if (blank(id) || id.startsWith(LockValues.POD_PREFIX)) {
      throw new IllegalArgumentException(
          "an external holder id must be non-empty and not start with '"
              + LockValues.POD_PREFIX
              + "'");
    }
    return new LockOwner(id, false);
  }

  /**
   * A fresh value for one acquisition: this owner's id, a colon, its part and a '~' if it is one,
   * and 16 random hex digits.
   */
  public String newValue() {
    return id + ":" + (part == null ? "" : part + "~") + LockValues.random();
  }

  /**
   * Whether {@code value} is one of this owner's ({@link #newValue()}): its id, a colon and a
   * suffix without one, so that an external id {@code a} never claims the values of {@code a:b}; a
   * part's values name that part before a '~', the whole owner's name none.
   */
  public boolean wrote(String value) {
    String prefix = id + ":";
    if (value == null || !value.startsWith(prefix) || value.indexOf(':', prefix.length()) >= 0) {
      return false;
    }
    String suffix = value.substring(prefix.length());
    int tilde = suffix.lastIndexOf('~');
    return part == null ? tilde < 0 : tilde >= 0 && suffix.substring(0, tilde).equals(part);
  }

  /** {@code pod:<namespace>/<name>/<uid>} or the external id. */
  public String id() {
    return id;
  }

  public boolean isPod() {
    return pod;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  @Override
  public String toString() {
    return id;
  }
}
