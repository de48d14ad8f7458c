package dev.baton.operator.kube;

/**
 * What a reporter told of one resource in earlier reconciles, so that each thing is told once, not
 * on every retry: an outage of Redis, the last problem, and what only one kind of resource tells
 * ({@code own}). A value: a report starts from the one its reporter kept, and hands the one it
 * leaves back once, at its end ({@link ResourceReporter}).
 *
 * @param redisDown Redis was told unreachable, and not told back since
 * @param problem the last problem told as an Event, or null
 * @param <X> what the one kind of resource remembers besides
 */
public record Said<X>(boolean redisDown, String problem, X own) {

  /** Nothing told yet. */
  public static <X> Said<X> nothing(X own) {
    return new Said<>(false, null, own);
  }

  public Said<X> redisDown(boolean down) {
    return new Said<>(down, problem, own);
  }

  public Said<X> problem(String told) {
    return new Said<>(redisDown, told, own);
  }

  public Said<X> own(X next) {
    return new Said<>(redisDown, problem, next);
  }
}
