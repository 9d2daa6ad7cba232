package io.fleetwave.controlplane.rollout.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.core.rollout.decide.RolloutFold;
import io.fleetwave.core.rollout.decide.RolloutRules;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import io.fleetwave.events.rollout.RolloutCreated;
import java.io.IOException;
import java.util.Optional;
import java.util.function.Function;

/**
 * The plan a rollout's creation carries (the control plane's RolloutPlan as JSON), read the same
 * way by the engine and the rebuild, so both reach the same verdict on one that does not read.
 */
final class LoggedPlan {
  private LoggedPlan() {}

  /**
   * The plan document {@code run}'s creation carries; null for a rollout logged as v1 or one whose
   * creation is not in the log. The pure core passes the RolloutCreated through without reading it.
   */
  static JsonNode of(RolloutRun run) {
    return run.created() == null ? null : run.created().plan();
  }

  static RolloutPlan read(ObjectMapper json, JsonNode plan) throws IOException {
    return json.treeToValue(plan, RolloutPlan.class);
  }

  /**
   * The fold's check of a rollout's logged plan ({@link RolloutFold#fold}) that keeps the rules it
   * read: a 100,000-node plan is 65 MB of JSON, and reading it again for the rules the engine runs
   * by took as long as the check itself.
   */
  static final class Check implements Function<RolloutCreated, Optional<String>> {
    private final ObjectMapper json;
    private JsonNode checked;
    private RolloutRules rules;

    Check(ObjectMapper json) {
      this.json = json;
    }

    /** Why the plan does not read as the plan the engine runs by; empty when it reads. */
    @Override
    public Optional<String> apply(RolloutCreated created) {
      JsonNode plan = created.plan();
      if (plan == null) {
        // Logged as v1: the plan is the stored row's, read when the engine needs it.
        return Optional.empty();
      }
      try {
        rules = RolloutRules.of(read(json, plan));
        checked = plan;
        return Optional.empty();
      } catch (IOException | RuntimeException e) {
        rules = null;
        checked = null;
        return Optional.of(String.valueOf(e.getMessage()));
      }
    }

    /**
     * The rules of {@code plan} if this check read it (the fold hands over the instance the run
     * keeps, so {@code equals} returns at its identity check), else empty.
     */
    Optional<RolloutRules> rulesOf(JsonNode plan) {
      return plan != null && plan.equals(checked) ? Optional.of(rules) : Optional.empty();
    }
  }
}
