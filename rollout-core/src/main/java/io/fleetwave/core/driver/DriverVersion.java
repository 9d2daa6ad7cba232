package io.fleetwave.core.driver;

import java.util.Arrays;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * An NVIDIA driver version such as {@code 580.95.05}, ordered numerically part by part (so {@code
 * 575.51.03 < 575.64 < 580.65.06}); missing parts count as 0, so {@code 570.00} equals {@code 570}.
 */
// An array component on purpose (numeric parts): the constructor copies it, and equals, hashCode
// and toString are written out below to compare the parts numerically.
@SuppressWarnings("ArrayRecordComponent")
public record DriverVersion(int[] parts) implements Comparable<DriverVersion> {
  private static final Pattern FORMAT = Pattern.compile("\\d{1,4}(\\.\\d{1,4}){0,3}");

  public DriverVersion {
    parts = parts.clone();
  }

  /** Parses a version; throws IllegalArgumentException with the expected format. */
  public static DriverVersion parse(String text) {
    if (text == null || !FORMAT.matcher(text.trim()).matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not an NVIDIA driver version (expected e.g. 580.95.05 or 570)");
    }
    return new DriverVersion(
        Arrays.stream(text.trim().split("\\.")).mapToInt(Integer::parseInt).toArray());
  }

  /** The driver branch, e.g. 580 for 580.95.05. */
  public int branch() {
    return parts[0];
  }

  public boolean isOlderThan(DriverVersion other) {
    return compareTo(other) < 0;
  }

  @Override
  public int compareTo(DriverVersion other) {
    int length = Math.max(parts.length, other.parts.length);
    for (int i = 0; i < length; i++) {
      int a = i < parts.length ? parts[i] : 0;
      int b = i < other.parts.length ? other.parts[i] : 0;
      if (a != b) {
        return Integer.compare(a, b);
      }
    }
    return 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DriverVersion v && compareTo(v) == 0;
  }

  @Override
  public int hashCode() {
    int end = parts.length;
    while (end > 1 && parts[end - 1] == 0) {
      end--;
    }
    return Arrays.hashCode(Arrays.copyOf(parts, end));
  }

  /** The version as written, parts zero-padded to two digits after the first (580.95.05). */
  @Override
  public String toString() {
    return parts[0]
        + Arrays.stream(parts)
            .skip(1)
            .mapToObj(p -> "." + String.format("%02d", p))
            .collect(Collectors.joining());
  }
}
