package io.fleetwave.controlplane.rollout.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.controlplane.api.CoreJson;
import io.fleetwave.core.rollout.plan.LargeFleetPlans;
import io.fleetwave.events.rollout.RolloutCreated;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fold's plan check keeps the rules it read, for the very plan it read and no other. */
class LoggedPlanTest {
  private static final ObjectMapper JSON = CoreJson.mapper();

  @Test
  void aPlanThatReadsHasNoProblemAndItsRulesAreKeptForThatPlan() {
    JsonNode plan = JSON.valueToTree(LargeFleetPlans.plan("check", 3, 1));
    LoggedPlan.Check check = new LoggedPlan.Check(JSON);

    assertThat(check.apply(created(plan))).isEmpty();

    assertThat(check.rulesOf(plan))
        .hasValueSatisfying(
            rules ->
                assertThat(rules.plans())
                    .containsOnlyKeys("check-000000", "check-000001", "check-000002"));
    JsonNode other = JSON.valueToTree(LargeFleetPlans.plan("other", 3, 1));
    assertThat(check.rulesOf(other)).as("another plan is read again, not assumed").isEmpty();
    assertThat(check.rulesOf(null)).isEmpty();
  }

  @Test
  void aPlanThatDoesNotReadNamesWhyAndKeepsNoRules() {
    JsonNode good = JSON.valueToTree(LargeFleetPlans.plan("check", 2, 1));
    ObjectNode bad = good.deepCopy();
    bad.put("waves", "not a list");
    LoggedPlan.Check check = new LoggedPlan.Check(JSON);
    check.apply(created(good));

    assertThat(check.apply(created(bad)))
        .hasValueSatisfying(why -> assertThat(why).contains("waves"));

    assertThat(check.rulesOf(bad)).isEmpty();
    assertThat(check.rulesOf(good)).as("the last check is the one kept").isEmpty();
  }

  /** The creation that carries {@code plan}, as the fold hands it to the check. */
  private static RolloutCreated created(JsonNode plan) {
    return new RolloutCreated("check", List.of(List.of("check-000000")), null, plan, "test");
  }
}
