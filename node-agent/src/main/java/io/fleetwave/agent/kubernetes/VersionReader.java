package io.fleetwave.agent.kubernetes;

/** Reads the API server's version (GET /version). */
@FunctionalInterface
public interface VersionReader {
  /**
   * @return the API server's gitVersion, e.g. {@code v1.29.4}
   * @throws NodeUnreadableException when the API refuses or fails, with why in words
   */
  String gitVersion();
}
