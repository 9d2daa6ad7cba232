package io.fleetwave.controlplane.bench;

import java.util.Arrays;

/** Nearest-rank percentiles of a set of durations in microseconds. */
record Percentiles(long count, double p50Ms, double p99Ms, double maxMs) {
  static Percentiles of(long[] micros) {
    if (micros.length == 0) {
      return new Percentiles(0, Double.NaN, Double.NaN, Double.NaN);
    }
    long[] sorted = micros.clone();
    Arrays.sort(sorted);
    return new Percentiles(
        sorted.length, rank(sorted, 0.50), rank(sorted, 0.99), sorted[sorted.length - 1] / 1000.0);
  }

  private static double rank(long[] sorted, double q) {
    int index = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, index)] / 1000.0;
  }

  @Override
  public String toString() {
    return "p50 %.1f ms, p99 %.1f ms, max %.1f ms (n=%d)".formatted(p50Ms, p99Ms, maxMs, count);
  }
}
