package io.fleetwave.agent.kubernetes;

import java.util.Map;
import java.util.Optional;

/** Reads one Node object of the Kubernetes API. */
@FunctionalInterface
public interface NodeReader {
  /**
   * @return the node's labels; empty when no Node has this name
   * @throws NodeUnreadableException when the API refuses or fails, with why in words
   */
  Optional<Map<String, String>> labels(String node);
}
