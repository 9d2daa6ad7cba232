package io.fleetwave.events.codec;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Reads the one timestamp form the codec writes, {@code yyyy-MM-ddTHH:mm:ss[.fraction]Z}, without
 * the JDK's formatter machinery, which the CloudEvents SDK's {@code Time.parseTime} uses and which
 * was a fifth of the rollout engine's event-reading thread in a profile. Anything else (an offset,
 * a leap second, a malformed or impossible date) is declined with null, and the caller asks the
 * SDK's parser: both give the same instant wherever this one answers (a property test checks it).
 */
final class UtcTimestamps {
  private static final int SHORTEST = "2026-12-01T00:00:00Z".length();
  private static final int[] NANO_SCALE = {
    100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1
  };

  private UtcTimestamps() {}

  /** The instant {@code text} names, or null when it is not in the codec's own form. */
  static Instant parseOrNull(String text) {
    int length = text.length();
    if (length < SHORTEST
        || length > SHORTEST + 10
        || text.charAt(4) != '-'
        || text.charAt(7) != '-'
        || text.charAt(10) != 'T'
        || text.charAt(13) != ':'
        || text.charAt(16) != ':'
        || text.charAt(length - 1) != 'Z') {
      return null;
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 7);
    int day = digits(text, 8, 10);
    int hour = digits(text, 11, 13);
    int minute = digits(text, 14, 16);
    int second = digits(text, 17, 19);
    int nanos = 0;
    if (length > SHORTEST) {
      int fraction = length - SHORTEST - 1; // between the '.' and the 'Z'
      if (text.charAt(19) != '.' || fraction < 1) {
        return null;
      }
      int value = digits(text, 20, 20 + fraction);
      if (value < 0) {
        return null;
      }
      nanos = value * NANO_SCALE[fraction - 1];
    }
    // Second 60 is a leap second: ISO_INSTANT would take it, the SDK's parser refuses it.
    if ((year | month | day | hour | minute | second) < 0 || second > 59 || hour > 23) {
      return null;
    }
    try {
      return LocalDateTime.of(year, month, day, hour, minute, second, nanos)
          .toInstant(ZoneOffset.UTC);
    } catch (DateTimeException impossible) {
      return null; // February 30th and the like: the SDK's parser words the refusal
    }
  }

  /** The decimal number in {@code text[from, to)}, or -1 if any of it is not an ASCII digit. */
  private static int digits(String text, int from, int to) {
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
