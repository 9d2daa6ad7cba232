package io.fleetwave.controlplane.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's CPU time from Linux's {@code /proc/stat} (its first line, in clock ticks): how many
 * cores were busy between two samples, every process counted.
 */
final class MachineCpu {
  private static final Path STAT = Path.of("/proc/stat");

  private MachineCpu() {}

  /** Ticks busy (user, nice, system, irq, softirq, steal) and in all, at one moment. */
  record Sample(long busy, long total) {
    /** Cores busy on average since {@code earlier}, of this machine's processors. */
    double busyCoresSince(Sample earlier) {
      long all = total - earlier.total;
      return all <= 0
          ? 0
          : (double) (busy - earlier.busy) / all * Runtime.getRuntime().availableProcessors();
    }
  }

  static Sample sample() {
    try {
      String[] fields = Files.readAllLines(STAT).getFirst().trim().split("\\s+", -1);
      // cpu user nice system idle iowait irq softirq steal ...
      long idle = Long.parseLong(fields[4]) + Long.parseLong(fields[5]);
      long total = 0;
      for (int i = 1; i <= 8 && i < fields.length; i++) {
        total += Long.parseLong(fields[i]);
      }
      return new Sample(total - idle, total);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + STAT, e);
    }
  }
}
