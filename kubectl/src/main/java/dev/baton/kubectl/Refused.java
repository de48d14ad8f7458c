package dev.baton.kubectl;

/** A command that cannot be carried out, with the reason to print: exit code 1. */
final class Refused extends RuntimeException {

  Refused(String message) {
    super(message, null, false, false);
  }
}
