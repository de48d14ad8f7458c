package dev.baton.client;

/**
 * A lock could not be decided: not enough Redis instances answered, or no fencing tokens are
 * reserved for it yet.
 */
public class LockUnavailableException extends RuntimeException {
  public LockUnavailableException(String message) {
    super(message);
  }
}
