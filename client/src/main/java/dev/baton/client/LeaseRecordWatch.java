package dev.baton.client;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.redisson.api.RScript;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Leadership from the election's record in Redis. The lease scripts publish the holder key on
 * {@code baton:leases} whenever the lease changes hands; each notification, and a timer, read the
 * record with its remaining time. A takeover keeps the record it replaced as the election's
 * handover until the old leader lets go (or its lease would have run out); a pod the record names
 * is told it leads only once no handover is left, so its predecessor has stopped first.
 */
final class LeaseRecordWatch implements BatonLeadership.Source {

  static final String CHANNEL = "baton:leases";
  private static final LuaScript OBSERVE = LuaScript.load("leadership-observe");
  private static final LuaScript LET_GO = LuaScript.load("leadership-let-go");

  /** While waiting for a predecessor to let go, look again this often besides its notice. */
  private static final long HANDOVER_POLL_MILLIS = 50;

  /**
   * The application's Redisson client has its own timeouts, unknown here: this only ends a call
   * that would never end, which would stop every later read. A late answer needs no bound of its
   * own, as its confirmation counts from when it was asked.
   */
  private static final Duration CALL_BOUND = Duration.ofSeconds(30);

  private final RScript script;
  private final RTopic topic;
  private final List<Object> keys;
  private final String holderKey;
  private final String podUid;
  private final BatonLeadership.Options options;
  private final ScheduledExecutorService reader;
  private Consumer<BatonLeadership.Confirmation> sink;
  private Consumer<String> unreachable;
  private Integer listenerId;
  private volatile String ledWith;
  private boolean handoverPollScheduled;

  LeaseRecordWatch(
      RedissonClient redisson, String electionKey, String podUid, BatonLeadership.Options options) {
    this.script = redisson.getScript(StringCodec.INSTANCE);
    this.topic = redisson.getTopic(CHANNEL, StringCodec.INSTANCE);
    ElectionKeys election = new ElectionKeys(electionKey);
    this.holderKey = election.holder();
    this.keys = List.of(holderKey, election.handover());
    this.podUid = podUid;
    this.options = options;
    this.reader =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("baton-leadership-redis"));
  }

  @Override
  public void start(Consumer<BatonLeadership.Confirmation> sink, Consumer<String> unreachable) {
    this.sink = sink;
    this.unreachable = unreachable;
    try {
      listenerId =
          topic.addListener(
              String.class,
              (channel, key) -> {
                if (holderKey.equals(key)) {
                  reader.execute(this::read);
                }
              });
    } catch (RuntimeException e) {
      unreachable.accept("cannot subscribe to " + CHANNEL + ": " + e.getClass().getSimpleName());
    }
    long every = options.confirmEvery().toMillis();
    reader.scheduleWithFixedDelay(this::read, 0, every, TimeUnit.MILLISECONDS);
  }

  private void read() {
    long asked = System.nanoTime();
    List<Object> r;
    try {
      r =
          BoundedRedisCall.await(
              script.evalAsync(
                  // READ_WRITE sends it to the master: a replica may lag and still name this pod.
                  holderKey,
                  RScript.Mode.READ_WRITE,
                  OBSERVE.source(),
                  RScript.ReturnType.LIST,
                  keys),
              CALL_BOUND);
    } catch (RuntimeException e) {
      unreachable.accept("Redis did not answer: " + e.getClass().getSimpleName());
      return;
    }
    String record = (String) r.get(0);
    long pttl = (Long) r.get(1);
    String handover = (String) r.get(2);
    Optional<HolderRecord> holder = HolderRecord.parse(record);
    boolean mine = holder.filter(h -> h.uid().equals(podUid)).isPresent() && pttl > 0;
    if (mine && !handover.isEmpty() && !handover.equals(record)) {
      // The predecessor may still believe it leads: wait for it to let go, or for the handover
      // to expire with its lease.
      sink.accept(new BatonLeadership.Confirmation(false, 0, 0, asked));
      if (!handoverPollScheduled) {
        handoverPollScheduled = true;
        reader.schedule(
            () -> {
              handoverPollScheduled = false;
              read();
            },
            HANDOVER_POLL_MILLIS,
            TimeUnit.MILLISECONDS);
      }
      return;
    }
    if (mine) {
      ledWith = record;
      sink.accept(new BatonLeadership.Confirmation(true, holder.get().term(), pttl, asked));
    } else {
      sink.accept(new BatonLeadership.Confirmation(false, 0, 0, asked));
    }
  }

  @Override
  public void released(long term) {
    String record = ledWith;
    if (record == null) {
      return;
    }
    reader.execute(
        () -> {
          try {
            BoundedRedisCall.await(
                script.evalAsync(
                    holderKey,
                    RScript.Mode.READ_WRITE,
                    LET_GO.source(),
                    RScript.ReturnType.LONG,
                    List.of(keys.get(1), holderKey),
                    record),
                CALL_BOUND);
          } catch (RuntimeException e) {
            // Its successor waits for the handover to expire instead.
            unreachable.accept(
                "could not let go of term " + term + ": " + e.getClass().getSimpleName());
          }
        });
  }

  @Override
  public void close() {
    if (listenerId != null) {
      try {
        topic.removeListener(listenerId);
      } catch (RuntimeException e) {
        // the connection is going away anyway
      }
    }
    reader.shutdown();
    try {
      reader.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
