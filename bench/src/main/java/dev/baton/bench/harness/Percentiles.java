package dev.baton.bench.harness;

import java.util.Arrays;
import java.util.Collection;

/**
 * The distribution of a set of measured durations, by the nearest-rank method: p50, p90, p99 are
 * values that were actually measured, never interpolated.
 *
 * @param count how many samples
 * @param p50 median, in the samples' unit
 * @param max the largest sample
 */
public record Percentiles(int count, double p50, double p90, double p99, double max, double mean) {

  public static Percentiles of(Collection<? extends Number> samples) {
    double[] values = samples.stream().mapToDouble(Number::doubleValue).toArray();
    return of(values);
  }

  public static Percentiles of(double[] samples) {
    if (samples.length == 0) {
      return new Percentiles(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    double[] sorted = samples.clone();
    Arrays.sort(sorted);
    return new Percentiles(
        sorted.length,
        rank(sorted, 50),
        rank(sorted, 90),
        rank(sorted, 99),
        sorted[sorted.length - 1],
        Arrays.stream(sorted).average().orElse(Double.NaN));
  }

  /** The smallest sample such that at least p percent of the samples are not above it. */
  static double rank(double[] sorted, double p) {
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  /** This distribution with every value divided by {@code other}'s (NaN where undefined). */
  public double[] ratios(Percentiles other) {
    return new double[] {p50 / other.p50, p90 / other.p90, p99 / other.p99, max / other.max};
  }
}
