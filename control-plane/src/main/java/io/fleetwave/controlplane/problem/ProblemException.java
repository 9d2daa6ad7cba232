package io.fleetwave.controlplane.problem;

import io.fleetwave.controlplane.api.ProblemMapper;
import java.io.Serial;
import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Thrown by the API to answer with a problem body; {@link ProblemMapper} renders it. Extension
 * members (RFC 9457 §3.2, e.g. {@code errors}) are added with {@link #with}.
 */
public class ProblemException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  // transient: never Java-serialized (nothing here serializes exceptions); read in this JVM.
  private final transient Problem problem;
  private final transient Map<String, Object> extensions = new LinkedHashMap<>();

  public ProblemException(int status, String slug, String title, String detail) {
    this(status, slug, title, detail, List.of());
  }

  public ProblemException(
      int status, String slug, String title, String detail, List<Problem.FieldError> errors) {
    super(detail);
    this.problem =
        new Problem(
            URI.create("https://fleetwave.io/problems/" + slug), title, status, detail, errors);
  }

  public static ProblemException badRequest(String slug, String title, String detail) {
    return new ProblemException(400, slug, title, detail);
  }

  public static ProblemException unknownNode(String name) {
    return new ProblemException(
        404, "unknown-node", "Unknown node", "no node named '" + name + "'");
  }

  /** 422: the request is well formed but cannot be applied; every field problem is listed. */
  public static ProblemException invalid(String detail, List<Problem.FieldError> errors) {
    return new ProblemException(422, "invalid-spec", "Invalid request", detail, errors);
  }

  /** Adds an extension member to the problem body. */
  public ProblemException with(String member, Object value) {
    extensions.put(member, value);
    return this;
  }

  public Problem problem() {
    return problem;
  }

  public Map<String, Object> extensions() {
    return Collections.unmodifiableMap(extensions);
  }
}
