package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serial;

/**
 * The API answered with an error status: {@link #getMessage()} is one line with the status, the
 * problem's title and its detail; {@link #fieldErrors()} the lines of its {@code errors} array.
 */
public final class ApiException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final int status;
  // transient: never Java-serialized (nothing here serializes exceptions); read in this JVM.
  private final transient JsonNode problem;

  public ApiException(int status, String message, JsonNode problem) {
    super(message);
    this.status = status;
    this.problem = problem;
  }

  public int status() {
    return status;
  }

  /** One line per entry of the problem's {@code errors}: "field: message" (line too, if any). */
  public java.util.List<String> fieldErrors() {
    java.util.List<String> lines = new java.util.ArrayList<>();
    for (JsonNode error : problem.path("errors")) {
      StringBuilder line = new StringBuilder();
      if (error.hasNonNull("line")) {
        line.append("line ").append(error.get("line").asText()).append(": ");
      }
      if (error.hasNonNull("field")) {
        line.append(error.get("field").asText()).append(": ");
      }
      line.append(error.path("message").asText(error.toString()));
      lines.add(line.toString());
    }
    return lines;
  }
}
