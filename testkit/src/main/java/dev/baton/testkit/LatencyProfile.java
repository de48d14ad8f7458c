package dev.baton.testkit;

import java.util.Arrays;
import java.util.Random;

/**
 * How long the embedded API server takes, by kind of request, and how late it delivers a write's
 * watch event: each a spread of milliseconds drawn from a seeded random source, so a run draws the
 * same sequence of delays every time. {@link #kubeApiserver132} is what kube-apiserver v1.32 did on
 * a 2-core node with Baton and its examples running (its own request histogram, and watchers timed
 * against the write: /work/shared/REAL-SERVER.md, "Latencies"). A request is held this long before
 * the server handles it, so a write lands (is stored, answered, and its watch events sent) at the
 * end of its delay, as a real server answers once etcd has the write.
 */
public record LatencyProfile(
    long seed,
    Spread podWrite,
    Spread resourceWrite,
    Spread otherWrite,
    Spread read,
    Spread watch) {

  /**
   * kube-apiserver v1.32.13, 2 cores, one node: a pod PATCH about 10 % under 5 ms, 80 % under 25,
   * 93 % under 50 and 99 % under 100; a pod GET 84 % under 5 ms and 97 % under 25; a LeaderGroup
   * status write 97 % under 25 ms; a write's event at its watchers 2-10 ms after it landed. Other
   * writes (Events, EndpointSlices, Leases) take a pod PATCH's time, other reads a pod GET's. Where
   * the histogram gives only a bound, the share under it is spread evenly down to the next bound.
   */
  public static LatencyProfile kubeApiserver132(long seed) {
    Spread patch = Spread.of(1, 5, 0.10, 25, 0.80, 50, 0.93, 100, 0.99, 150, 1.0);
    return new LatencyProfile(
        seed,
        patch,
        Spread.of(1, 5, 0.10, 25, 0.97, 50, 1.0),
        patch,
        Spread.of(0.5, 5, 0.84, 25, 0.97, 50, 1.0),
        Spread.of(2, 10, 1.0));
  }

  /** What each request and event is delayed by: one random stream per kind, from the seed. */
  Draws draws() {
    return new Draws(this);
  }

  /**
   * Milliseconds spread over buckets, uniform within each: {@code bounds[i]..bounds[i+1]} holds the
   * share {@code cumulative[i+1] - cumulative[i]}.
   */
  public record Spread(double[] bounds, double[] cumulative) {

    /**
     * @param lowest the least delay, then pairs of a bucket's upper bound and the share of delays
     *     at or under it (the last share 1.0)
     */
    public static Spread of(double lowest, double... boundsAndShares) {
      if (boundsAndShares.length % 2 != 0 || boundsAndShares.length == 0) {
        throw new IllegalArgumentException("pairs of an upper bound and a cumulative share");
      }
      int n = boundsAndShares.length / 2;
      double[] bounds = new double[n + 1];
      double[] cumulative = new double[n + 1];
      bounds[0] = lowest;
      for (int i = 0; i < n; i++) {
        bounds[i + 1] = boundsAndShares[2 * i];
        cumulative[i + 1] = boundsAndShares[2 * i + 1];
        if (bounds[i + 1] < bounds[i] || cumulative[i + 1] < cumulative[i]) {
          throw new IllegalArgumentException(
              "bounds and shares must grow: " + Arrays.toString(boundsAndShares));
        }
      }
      if (cumulative[n] != 1.0) {
        throw new IllegalArgumentException("the last share must be 1.0");
      }
      return new Spread(bounds, cumulative);
    }

    /** One delay in milliseconds. */
    double draw(Random random) {
      double u = random.nextDouble();
      for (int i = 1; i < cumulative.length; i++) {
        if (u < cumulative[i] || i == cumulative.length - 1) {
          double share = cumulative[i] - cumulative[i - 1];
          double within = share == 0 ? 0 : (u - cumulative[i - 1]) / share;
          return bounds[i - 1] + Math.min(1, Math.max(0, within)) * (bounds[i] - bounds[i - 1]);
        }
      }
      return bounds[bounds.length - 1];
    }

    /** The share of delays under {@code millis}, as the buckets say. */
    public double shareUnder(double millis) {
      for (int i = 1; i < bounds.length; i++) {
        if (millis <= bounds[i]) {
          double width = bounds[i] - bounds[i - 1];
          double within = width == 0 ? 1 : (millis - bounds[i - 1]) / width;
          return cumulative[i - 1] + Math.max(0, within) * (cumulative[i] - cumulative[i - 1]);
        }
      }
      return 1.0;
    }
  }

  /** The random streams of one server run: one per kind, so one kind's traffic leaves another's. */
  static final class Draws {
    private final LatencyProfile profile;
    private final Random podWrite;
    private final Random resourceWrite;
    private final Random otherWrite;
    private final Random read;
    private final Random watch;

    private Draws(LatencyProfile profile) {
      this.profile = profile;
      Random seeds = new Random(profile.seed());
      podWrite = new Random(seeds.nextLong());
      resourceWrite = new Random(seeds.nextLong());
      otherWrite = new Random(seeds.nextLong());
      read = new Random(seeds.nextLong());
      watch = new Random(seeds.nextLong());
    }

    /** Nanoseconds a request of this kind is held before it is handled. */
    long request(ServerConditions.Kind kind) {
      double ms;
      synchronized (this) {
        ms =
            switch (kind) {
              case POD_WRITE -> profile.podWrite().draw(podWrite);
              case RESOURCE_WRITE -> profile.resourceWrite().draw(resourceWrite);
              case OTHER_WRITE -> profile.otherWrite().draw(otherWrite);
              case READ -> profile.read().draw(read);
            };
      }
      return (long) (ms * 1_000_000);
    }

    /** Nanoseconds between a write landing and one watcher receiving its event. */
    long watchEvent() {
      synchronized (this) {
        return (long) (profile.watch().draw(watch) * 1_000_000);
      }
    }
  }
}
