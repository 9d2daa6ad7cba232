package io.fleetwave.controlplane.rollout.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.rollout.plan.RolloutPlan;
import java.io.IOException;
import java.util.Optional;

/**
 * The plan a rollout's creation carries (the control plane's RolloutPlan as JSON), read the same
 * way by the engine and the rebuild, so both reach the same verdict on one that does not read.
 */
final class LoggedPlan {
  private LoggedPlan() {}

  static RolloutPlan read(ObjectMapper json, JsonNode plan) throws IOException {
    return json.treeToValue(plan, RolloutPlan.class);
  }

  /** Why the plan does not read as the plan the engine runs by; empty when it reads. */
  static Optional<String> problem(ObjectMapper json, JsonNode plan) {
    try {
      RolloutRules.of(read(json, plan));
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.of(String.valueOf(e.getMessage()));
    }
  }
}
