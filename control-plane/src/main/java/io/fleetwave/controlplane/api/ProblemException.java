package io.fleetwave.controlplane.api;

import java.net.URI;

/** Thrown by the API to answer with a problem body; {@link ProblemMapper} renders it. */
public class ProblemException extends RuntimeException {
  private final Problem problem;

  public ProblemException(int status, String slug, String title, String detail) {
    super(detail);
    this.problem =
        new Problem(URI.create("https://fleetwave.io/problems/" + slug), title, status, detail);
  }

  public static ProblemException badRequest(String slug, String title, String detail) {
    return new ProblemException(400, slug, title, detail);
  }

  public static ProblemException unknownNode(String name) {
    return new ProblemException(
        404, "unknown-node", "Unknown node", "no node named '" + name + "'");
  }

  public Problem problem() {
    return problem;
  }
}
