package io.fleetwave.controlplane.rollout.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.controlplane.api.CoreJson;
import io.fleetwave.core.rollout.decide.RolloutRules;
import io.fleetwave.core.rollout.plan.GpuBudget;
import io.fleetwave.core.rollout.plan.LargeFleetPlans;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import io.fleetwave.events.rollout.RolloutCreated;
import java.util.List;
import java.util.Map;
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

  @Test
  void theRulesOfALoggedPlanHoldItsGpuBudgetWithEachNodesGpusAndLabels() {
    JsonNode plan = JSON.valueToTree(LargeFleetPlans.plan("budget", 3, 8, 16, 8));
    LoggedPlan.Check check = new LoggedPlan.Check(JSON);

    assertThat(check.apply(created(plan))).isEmpty();

    RolloutRules rules = check.rulesOf(plan).orElseThrow();
    assertThat(rules.budget()).isEqualTo(new GpuBudget(16, Map.of("pool", 8)));
    assertThat(rules.plan("budget-000001"))
        .satisfies(
            node -> {
              assertThat(node.gpus()).isEqualTo(8);
              assertThat(node.budgetLabels()).containsExactly(Map.entry("pool", "budget"));
            });
  }

  /**
   * A plan logged before GPU budgets, forecasts and pending specs (none of their fields) reads with
   * the mapper the application reads logged plans with (Quarkus': a field left out is null or 0) as
   * a plan without a budget.
   */
  @Test
  void aPlanLoggedBeforeGpuBudgetsReadsWithoutABudget() throws Exception {
    ObjectNode plan = JSON.valueToTree(LargeFleetPlans.plan("old", 2, 1));
    plan.remove("forecasts");
    ((ObjectNode) plan.get("strategy")).remove(List.of("maxGpusOffline", "maxGpusOfflinePer"));
    for (JsonNode node : plan.findValues("nodes")) {
      node.forEach(n -> ((ObjectNode) n).remove(List.of("pendingSpec", "gpus", "budgetLabels")));
    }
    assertThat(plan.toString()).doesNotContain("maxGpusOffline", "budgetLabels", "pendingSpec");
    ObjectMapper quarkus =
        JsonMapper.builder()
            .findAndAddModules()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build()
            .registerModule(new CoreJson());

    RolloutPlan read = LoggedPlan.read(quarkus, plan);

    RolloutRules rules = RolloutRules.of(read);
    assertThat(rules.budget().bounded()).isFalse();
    assertThat(rules.plan("old-000000").gpus()).isZero();
    assertThat(read.forecasts()).isEmpty();
  }

  /** The creation that carries {@code plan}, as the fold hands it to the check. */
  private static RolloutCreated created(JsonNode plan) {
    return new RolloutCreated("check", List.of(List.of("check-000000")), null, plan, "test");
  }
}
