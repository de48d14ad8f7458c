package dev.baton.client;

/**
 * The lock scripts, {@code /lua/lock-*.lua} in this jar: the single copy that applications and the
 * operator both run. Each opens with a comment naming its KEYS, ARGV and reply.
 */
public enum LockScripts {
  ACQUIRE("lock-acquire"),
  FENCE("lock-fence"),
  RENEW("lock-renew"),
  RELEASE("lock-release"),
  OBSERVE("lock-observe"),
  RESERVE("counter-reserve");

  private final LuaScript script;

  LockScripts(String fileName) {
    this.script = LuaScript.load(fileName);
  }

  public String fileName() {
    return script.name();
  }

  public String source() {
    return script.source();
  }
}
