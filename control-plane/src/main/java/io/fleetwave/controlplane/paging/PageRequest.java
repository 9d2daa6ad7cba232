package io.fleetwave.controlplane.paging;

import io.fleetwave.controlplane.problem.ProblemException;

/** Validated paging parameters: {@code page} is 0-based, {@code size} 1..{@value #MAX_SIZE}. */
public record PageRequest(int page, int size) {
  public static final int DEFAULT_SIZE = 50;
  public static final int MAX_SIZE = 500;

  public static PageRequest parse(String page, String size) {
    int pageNumber = parseInt("page", page, 0);
    int pageSize = parseInt("size", size, DEFAULT_SIZE);
    if (pageNumber < 0) {
      throw invalid("page", page, "must be 0 or more (pages are 0-based)");
    }
    if (pageSize < 1 || pageSize > MAX_SIZE) {
      throw invalid("size", size, "must be between 1 and " + MAX_SIZE);
    }
    return new PageRequest(pageNumber, pageSize);
  }

  public long offset() {
    return (long) page * size;
  }

  private static int parseInt(String name, String text, int fallback) {
    if (text == null || text.isEmpty()) {
      return fallback;
    }
    try {
      return Integer.parseInt(text.strip());
    } catch (NumberFormatException e) {
      throw invalid(name, text, "is not an integer");
    }
  }

  private static ProblemException invalid(String name, String value, String why) {
    return ProblemException.badRequest(
        "bad-paging",
        "Invalid paging parameter",
        "query parameter '" + name + "' " + why + ", got '" + value + "'");
  }
}
