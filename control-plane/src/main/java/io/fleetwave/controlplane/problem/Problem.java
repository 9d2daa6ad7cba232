package io.fleetwave.controlplane.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.net.URI;
import java.util.List;

/**
 * An RFC 9457 problem details body; {@code errors} (an extension member) lists every field problem
 * of a rejected request, and is left out when there are none.
 */
public record Problem(
    URI type,
    String title,
    int status,
    String detail,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<FieldError> errors) {
  public static final String MEDIA_TYPE = "application/problem+json";

  public Problem {
    errors = errors == null ? List.of() : List.copyOf(errors);
  }

  public Problem(URI type, String title, int status, String detail) {
    this(type, title, status, detail, List.of());
  }

  /**
   * One problem of a request body.
   *
   * @param field where, e.g. {@code gpus[0].instances}
   * @param message what is wrong, naming the GPU
   */
  public record FieldError(String field, String message) {}
}
