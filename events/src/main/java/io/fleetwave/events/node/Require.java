package io.fleetwave.events.node;

/**
 * Field checks for event and command records: the message names the missing field, for dead-letter
 * and rejection reasons. Public so the spec and command records share the wording.
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
}
