package dev.baton.client;

/** Not enough Redis instances answered to take or keep a lock. */
public class LockUnavailableException extends RuntimeException {
  public LockUnavailableException(String message) {
    super(message);
  }
}
