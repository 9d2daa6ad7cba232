package io.fleetwave.core.rollout.plan;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A node count written as {@code "3"} or a share of the nodes written as {@code "10%"}. */
public sealed interface Quantity {
  Pattern FORMAT = Pattern.compile("(\\d{1,9})(%?)");

  /** The number of nodes this stands for out of {@code total}; percentages round up. */
  int resolve(int total);

  record Count(int count) implements Quantity {
    @Override
    public int resolve(int total) {
      return Math.min(count, total);
    }

    @Override
    public String toString() {
      return Integer.toString(count);
    }
  }

  record Percent(int percent) implements Quantity {
    @Override
    public int resolve(int total) {
      return (int) Math.min(total, ((long) percent * total + 99) / 100);
    }

    @Override
    public String toString() {
      return percent + "%";
    }
  }

  /**
   * Parses {@code "3"} or {@code "10%"}; throws IllegalArgumentException naming the field.
   *
   * @param minimum the smallest count or percentage allowed (0 or 1)
   */
  static Quantity parse(String text, String field, int minimum) {
    if (text == null) {
      throw new IllegalArgumentException(
          field + " is required (a count like \"3\" or a share like \"10%\")");
    }
    Matcher m = FORMAT.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          field + " '" + text + "' is neither a count like \"3\" nor a share like \"10%\"");
    }
    int value = Integer.parseInt(m.group(1));
    if (m.group(2).isEmpty()) {
      if (value < minimum) {
        throw new IllegalArgumentException(field + " '" + text + "' must be at least " + minimum);
      }
      return new Count(value);
    }
    if (value < minimum || value > 100) {
      throw new IllegalArgumentException(
          field + " '" + text + "' must be a percentage between " + minimum + "% and 100%");
    }
    return new Percent(value);
  }
}
