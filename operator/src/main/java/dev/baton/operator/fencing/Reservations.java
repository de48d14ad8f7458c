package dev.baton.operator.fencing;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.operator.kube.StatusWriter;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reserves blocks of fencing numbers, a LeaderGroup's terms or a RedisLock's tokens: first in the
 * resource's status (durable, guarded by resourceVersion so the reservation never goes down), only
 * then in Redis. A Redis without a reservation of its own first has its counter raised to the
 * reservation the status held before, above every number ever issued (docs/design.md, "Terms and
 * tokens never repeat"). The two differ only in where the status keeps the reservation and in how
 * big a block is, which are the parameters of {@link #terms} and {@link #tokens}.
 *
 * @param <R> the resource
 * @param <S> its status
 */
public final class Reservations<R extends CustomResource<?, S>, S> {

  private static final Logger log = LoggerFactory.getLogger(Reservations.class);

  /** Terms per status write: a Redis that loses its data skips at most this many. */
  public static final long TERM_BLOCK = 100;

  /** Tokens per status write at first, and at most: the block doubles while the lock is busy. */
  public static final long MIN_TOKEN_BLOCK = 1_000;

  public static final long MAX_TOKEN_BLOCK = 1L << 30;

  /** A lock's block before its first reservation since this operator started. */
  public static final Block FIRST_TOKENS = new Block(MIN_TOKEN_BLOCK, 0);

  private static final Duration BUSY = Duration.ofMinutes(1);

  /** The size of a block, and when it was reserved (System.nanoTime, 0 for never). */
  public record Block(long size, long atNanos) {
    /** No block reserved since this operator started. */
    public static final Block NONE = new Block(0, 0);
  }

  /**
   * The one rule for reserving ahead, terms and tokens alike: less than half a block is left
   * between what was handed out and the ceiling reserved, so the next block is reserved while a
   * slow status write still has room.
   */
  public static boolean runningLow(long ceiling, long handedOut, long blockSize) {
    return ceiling - handedOut < blockSize / 2;
  }

  /**
   * Acquires; where Redis refused for want of a reservation of its own (it issues no number above a
   * reservation it does not hold), reserves and acquires once more. The refusal is the acquire's
   * own answer, which no plan can know beforehand: terms and tokens alike.
   */
  public static <A> A acquireReserving(
      Supplier<A> acquire, Predicate<A> unreserved, Consumer<A> reserve) {
    A got = acquire.get();
    if (unreserved.test(got)) {
      reserve.accept(got);
      got = acquire.get();
    }
    return got;
  }

  /** The block to reserve now, from the last one. */
  public interface Sizing {
    Block next(Block last, long nowNanos);
  }

  /** Writes the reservation to Redis: counters below {@code floor} are raised to it. */
  public interface RedisSide {
    void reserve(long floor, long ceiling);
  }

  /**
   * A reservation made.
   *
   * @param ceiling the reservation the status records after the write
   * @param block the block it reserved, which sizes the next
   */
  public record Reserved(long ceiling, Block block) {}

  /**
   * Where a kind's status keeps its reservation.
   *
   * @param what the numbers reserved, as the log names them
   * @param empty a status with nothing set, which a write of the reservation alone starts from
   */
  private record StatusField<S>(
      String what, Supplier<S> empty, Function<S, Long> get, BiConsumer<S, Long> set) {}

  private final StatusWriter statusWriter;
  private final StatusField<S> field;
  private final Sizing sizing;

  private Reservations(StatusWriter statusWriter, StatusField<S> field, Sizing sizing) {
    this.statusWriter = statusWriter;
    this.field = field;
    this.sizing = sizing;
  }

  /** A group's terms, a fixed block at a time: failovers are rare. */
  public static Reservations<LeaderGroup, LeaderGroupStatus> terms(StatusWriter statusWriter) {
    return new Reservations<>(
        statusWriter,
        new StatusField<>(
            "terms",
            LeaderGroupStatus::new,
            LeaderGroupStatus::getReservedTerm,
            LeaderGroupStatus::setReservedTerm),
        (last, now) -> new Block(TERM_BLOCK, now));
  }

  /**
   * A lock's tokens: an application may take a lock thousands of times a second, so a block
   * reserved within a minute of the last is twice as big, up to a limit; a quiet lock starts small.
   */
  public static Reservations<RedisLock, RedisLockStatus> tokens(StatusWriter statusWriter) {
    return new Reservations<>(
        statusWriter,
        new StatusField<>(
            "tokens",
            RedisLockStatus::new,
            RedisLockStatus::getReservedToken,
            RedisLockStatus::setReservedToken),
        (last, now) ->
            new Block(
                last.atNanos() != 0 && now - last.atNanos() < BUSY.toNanos()
                    ? Math.min(last.size() * 2, MAX_TOKEN_BLOCK)
                    : MIN_TOKEN_BLOCK,
                now));
  }

  /**
   * Reserves a block above everything known.
   *
   * @param known the highest number this operator knows was issued or reserved
   * @param counter the highest counter Redis showed
   * @param last the block reserved before
   * @param recorded told what the status records as soon as it does, before Redis is written: a
   *     Redis failure after that must not make the operator forget it; not told when the resource
   *     is gone
   */
  public void reserve(
      R resource,
      long known,
      long counter,
      Block last,
      RedisSide redis,
      Consumer<Reserved> recorded) {
    Block block = sizing.next(last, System.nanoTime());
    StatusWriter.Written<S> written =
        writeRaised(resource, Math.max(known, counter) + block.size());
    if (written == null) {
      return;
    }
    long ceiling = reserved(written.after());
    recorded.accept(new Reserved(ceiling, block));
    redis.reserve(Math.max(known, reserved(written.before())), ceiling);
    logReservation(resource, "reserved {} up to {}", ceiling);
  }

  /**
   * Records in the status a reservation found in Redis that the status does not cover, and writes
   * nothing to Redis: numbers issued under it are then above the floor of any later reservation.
   *
   * @param recorded told the reservation the status records after the write; not told when the
   *     resource is gone
   */
  public void cover(R resource, long inForce, LongConsumer recorded) {
    StatusWriter.Written<S> written = writeRaised(resource, inForce);
    if (written == null) {
      return;
    }
    recorded.accept(reserved(written.after()));
    logReservation(
        resource, "recorded {} reserved up to {} in Redis, above what its status held", inForce);
  }

  /**
   * Writes the resource's status with its reservation raised to {@code reservation} (never
   * lowered); null when the resource is gone.
   */
  private StatusWriter.Written<S> writeRaised(R resource, long reservation) {
    S raise = field.empty().get();
    field.set().accept(raise, reservation);
    return statusWriter.write(resource, raise, this::raise);
  }

  /** Logs {@code message} (its {} are what is reserved, then {@code number}) of the resource. */
  private void logReservation(R resource, String message, long number) {
    log.info(
        "{} {}/{}: " + message,
        resource.getKind(),
        resource.getMetadata().getNamespace(),
        resource.getMetadata().getName(),
        field.what(),
        number);
  }

  /** The reservation a status records, 0 for none. */
  public long reserved(S status) {
    Long r = status == null ? null : field.get().apply(status);
    return r == null ? 0 : r;
  }

  /**
   * The highest reservation this operator knows was recorded: a Redis whose own is lower refuses to
   * issue (it may be a replaced master that has not learned it yet), so the operator reserves.
   */
  public long known(R resource, long reservedHere) {
    return Math.max(reservedHere, reserved(resource.getStatus()));
  }

  /** The status to write, with a reservation never below the one on the server. */
  public S keepReservation(S current, S next) {
    if (reserved(current) > reserved(next)) {
      field.set().accept(next, field.get().apply(current));
    }
    return next;
  }

  /** The status on the server with its reservation raised to the one asked for, nothing else. */
  private S raise(S current, S asked) {
    S out = Serialization.clone(current);
    field.set().accept(out, Math.max(reserved(current), reserved(asked)));
    return out;
  }
}
