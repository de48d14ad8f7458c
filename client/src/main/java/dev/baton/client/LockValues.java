package dev.baton.client;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The values stored in a lock key. A pod writes {@code pod:<namespace>/<name>/<uid>:<random>}, so
 * that the operator can tell which pod holds a lock and delete it when that pod is gone; anything
 * else is an external holder, shown as the part before its last colon.
 */
public final class LockValues {

  public static final String POD_PREFIX = "pod:";

  private static final SecureRandom RANDOM = new SecureRandom();

  private LockValues() {}

  /** A value for a pod, with the given suffix (normally {@link #random()}). */
  public static String pod(String namespace, String name, String uid, String suffix) {
    for (String part : new String[] {namespace, name, uid}) {
      if (part == null || part.isEmpty() || part.contains("/") || part.contains(":")) {
        throw new IllegalArgumentException(
            "pod namespace, name and uid must be non-empty, without '/' or ':' (got '"
                + part
                + "')");
      }
    }
    return POD_PREFIX + namespace + "/" + name + "/" + uid + ":" + suffix;
  }

  /** 16 random hex digits: two holders never write the same value. */
  public static String random() {
    byte[] b = new byte[8];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** The pod a value names, or empty for anything that is not a pod value. */
  public static Optional<PodRef> parsePod(String value) {
    if (value == null || !value.startsWith(POD_PREFIX)) {
      return Optional.empty();
    }
    String rest = value.substring(POD_PREFIX.length());
    int colon = rest.indexOf(':');
    if (colon < 0) {
      return Optional.empty();
    }
    String[] id = rest.substring(0, colon).split("/", -1);
    if (id.length != 3 || id[0].isEmpty() || id[1].isEmpty() || id[2].isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new PodRef(id[0], id[1], id[2], rest.substring(colon + 1)));
  }

  /** Who a value names, for people: {@code namespace/name} for a pod, else the holder id. */
  public static String holder(String value) {
    if (value == null) {
      return "";
    }
    Optional<PodRef> pod = parsePod(value);
    if (pod.isPresent()) {
      return pod.get().namespace() + "/" + pod.get().name();
    }
    int colon = value.lastIndexOf(':');
    return colon > 0 ? value.substring(0, colon) : value;
  }

  /** A pod named in a lock value. */
  public record PodRef(String namespace, String name, String uid, String suffix) {}
}
