package dev.baton.examples.worker;

import dev.baton.client.LuaScript;
import java.util.List;
import java.util.OptionalLong;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A store that refuses writes with a lower term: a Redis list beside the highest term that wrote to
 * it, changed together by one script (fenced-append.lua). Whatever the leader does is written with
 * its term, so an old leader's late write fails instead of landing after the new leader's.
 */
public final class FencedJournal {

  private static final String SCRIPT = LuaScript.load("fenced-append").source();

  private final RScript script;
  private final List<Object> keys;

  public FencedJournal(RedissonClient redisson, String name) {
    this.script = redisson.getScript(StringCodec.INSTANCE);
    // One hash tag: both keys in one slot, so the script also runs on Redis Cluster.
    this.keys = List.of("journal:{" + name + "}:fence", "journal:{" + name + "}:entries");
  }

  /** Appends {@code entry}; returns empty when written, else the higher term that refused it. */
  public OptionalLong append(long term, String entry) {
    Long refusedBy =
        script.eval(
            (String) keys.get(0),
            RScript.Mode.READ_WRITE,
            SCRIPT,
            RScript.ReturnType.LONG,
            keys,
            Long.toString(term),
            entry);
    return refusedBy < 0 ? OptionalLong.empty() : OptionalLong.of(refusedBy);
  }
}
