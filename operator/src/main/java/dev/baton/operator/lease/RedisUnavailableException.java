package dev.baton.operator.lease;

/** Redis could not be reached or did not answer in time. The message never carries credentials. */
public class RedisUnavailableException extends RuntimeException {
  public RedisUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  public RedisUnavailableException(String message) {
    super(message);
  }
}
