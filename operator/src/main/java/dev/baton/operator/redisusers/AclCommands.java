package dev.baton.operator.redisusers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.protocol.RedisStrictCommand;
import org.redisson.client.protocol.convertor.VoidReplayConvertor;

/**
 * ACL SETUSER and ACL DELUSER on every master of one Redis (ACL users are not replicated). Only
 * SHA-256 hashes of passwords are sent ({@code #<hash>}), and a refusal is described in words of
 * our own: Redisson's exception messages repeat a command's arguments, so none reaches a log, an
 * Event or an exception from here.
 */
final class AclCommands {

  private static final RedisStrictCommand<Void> SETUSER =
      new RedisStrictCommand<>("ACL", "SETUSER", new VoidReplayConvertor());
  private static final RedisStrictCommand<Void> DELUSER =
      new RedisStrictCommand<>("ACL", "DELUSER", new VoidReplayConvertor());

  /** Redis refused an ACL command, or did not answer; the message names no argument. */
  static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message, null, false, false);
    }
  }

  private final Duration timeout;

  AclCommands(Duration timeout) {
    this.timeout = timeout;
  }

  /** Sets the user to exactly these rules and password hashes, switched on. */
  void setUser(RedissonClient redis, String user, List<String> passwordHashes, List<String> rules) {
    List<Object> args = new ArrayList<>();
    args.add(user);
    args.add("reset");
    args.add("on");
    passwordHashes.forEach(h -> args.add("#" + h));
    args.addAll(rules);
    run(redis, SETUSER, "ACL SETUSER", args.toArray());
  }

  void deleteUser(RedissonClient redis, String user) {
    run(redis, DELUSER, "ACL DELUSER", user);
  }

  private void run(
      RedissonClient redis, RedisStrictCommand<Void> command, String name, Object... args) {
    try {
      ((Redisson) redis)
          .getCommandExecutor()
          .writeAllVoidAsync(command, args)
          .toCompletableFuture()
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refused(name + " interrupted");
    } catch (TimeoutException e) {
      throw new Refused("Redis did not answer " + name + " within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      throw new Refused(explain(name, e.getCause()));
    }
  }

  /** The error's code only (NOPERM, ERR, ...), never its text, which carries the arguments. */
  static String explain(String command, Throwable error) {
    String text = error == null || error.getMessage() == null ? "" : error.getMessage();
    if (text.contains("NOPERM")) {
      return "the operator's Redis user may not run "
          + command
          + " (NOPERM): give it +acl|setuser and +acl|deluser (docs/redis-acl.md)";
    }
    String code = text.isBlank() ? "" : text.split("\\s", 2)[0];
    return "Redis refused "
        + command
        + (code.matches("[A-Z]{2,12}") ? " (" + code + ")" : "")
        + ": "
        + (error == null ? "no answer" : error.getClass().getSimpleName());
  }
}
