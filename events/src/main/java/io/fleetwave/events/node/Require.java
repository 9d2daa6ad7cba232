package io.fleetwave.events.node;

/** Field checks for event records: the message names the missing field, for dead-letter reasons. */
final class Require {
  private Require() {}

  static <T> T notNull(T value, String field) {
    if (value == null) {
      throw new IllegalArgumentException("missing required field '" + field + "'");
    }
    return value;
  }

  static String notBlank(String value, String field) {
    notNull(value, field);
    if (value.isBlank()) {
      throw new IllegalArgumentException("field '" + field + "' must not be blank");
    }
    return value;
  }

  static int notNegative(int value, String field) {
    if (value < 0) {
      throw new IllegalArgumentException("field '" + field + "' must not be negative: " + value);
    }
    return value;
  }
}
