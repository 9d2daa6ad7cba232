package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.problem.ProblemException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A query parameter that takes one or more values, comma-separated ({@code state=running,paused})
 * or repeated ({@code state=running&state=paused}); blank means no filter.
 */
final class ListParameter {
  private ListParameter() {}

  /** Each value, in the order given and without repeats; empty when the parameter is absent. */
  static List<String> values(Collection<String> raw) {
    Set<String> out = new LinkedHashSet<>();
    if (raw != null) {
      for (String text : raw) {
        if (text == null) {
          continue;
        }
        for (String part : text.split(",", -1)) {
          String value = part.strip();
          if (!value.isEmpty()) {
            out.add(value);
          }
        }
      }
    }
    return List.copyOf(out);
  }

  /**
   * The values, each one of {@code allowed}; a 400 problem naming the parameter, the value and the
   * allowed ones otherwise.
   */
  static List<String> oneOf(String name, Collection<String> raw, List<String> allowed) {
    List<String> values = values(raw);
    for (String value : values) {
      if (!allowed.contains(value)) {
        throw ProblemException.badRequest(
                "bad-filter",
                "Invalid filter",
                "query parameter '"
                    + name
                    + "': unknown value '"
                    + value
                    + "'; allowed: "
                    + String.join(", ", allowed)
                    + " (one or more, comma-separated)")
            .with("parameter", name)
            .with("allowed", allowed);
      }
    }
    return values;
  }

  /** The values as positive integers; a 400 problem naming the parameter and value otherwise. */
  static List<Integer> positiveIntegers(String name, Collection<String> raw) {
    List<Integer> out = new ArrayList<>();
    for (String value : values(raw)) {
      int number;
      try {
        number = Integer.parseInt(value);
      } catch (NumberFormatException e) {
        number = 0;
      }
      if (number < 1) {
        throw ProblemException.badRequest(
                "bad-filter",
                "Invalid filter",
                "query parameter '"
                    + name
                    + "': '"
                    + value
                    + "' is not a positive integer (waves are numbered from 1, the canary)")
            .with("parameter", name);
      }
      out.add(number);
    }
    return out;
  }
}
