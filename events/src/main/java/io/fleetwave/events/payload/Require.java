package io.fleetwave.events.payload;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Field checks for event and command records: the message names the missing field, for dead-letter
 * and rejection reasons. Every record package (node, rollout, fact, command, spec) shares the
 * wording.
 */
public final class Require {
  private Require() {}

  public static <T> T notNull(T value, String field) {
    if (value == null) {
      throw new IllegalArgumentException("missing required field '" + field + "'");
    }
    return value;
  }

  public static String notBlank(String value, String field) {
    notNull(value, field);
    if (value.isBlank()) {
      throw new IllegalArgumentException("field '" + field + "' must not be blank");
    }
    return value;
  }

  public static int notNegative(int value, String field) {
    if (value < 0) {
      throw new IllegalArgumentException("field '" + field + "' must not be negative: " + value);
    }
    return value;
  }

  public static long notNegative(long value, String field) {
    if (value < 0) {
      throw new IllegalArgumentException("field '" + field + "' must not be negative: " + value);
    }
    return value;
  }

  public static long positive(long value, String field) {
    if (value <= 0) {
      throw new IllegalArgumentException("field '" + field + "' must be positive: " + value);
    }
    return value;
  }

  /**
   * Refuses a list in which two elements share a key, naming the first repeated key: a node's GPUs
   * by index, a GPU's MIG instances by placement. The projection stores them keyed so.
   */
  public static <T> List<T> distinct(
      List<T> values, Function<T, ?> key, String field, String keyName) {
    Set<Object> seen = new HashSet<>();
    for (T value : values) {
      Object k = key.apply(value);
      if (!seen.add(k)) {
        throw new IllegalArgumentException(
            "field '" + field + "' lists " + keyName + " " + k + " more than once");
      }
    }
    return values;
  }
}
