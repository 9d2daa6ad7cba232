package io.fleetwave.core.rollout.decide;

import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.core.rollout.plan.GpuBudget;
import io.fleetwave.core.rollout.plan.MaintenanceWindow;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.core.rollout.plan.PlannedWave;
import io.fleetwave.core.rollout.plan.Quantity;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import io.fleetwave.core.rollout.plan.RolloutStrategy;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The limits a rollout runs under and what it does to each node, read once from its stored plan
 * (which never changes after creation).
 *
 * @param maxZonesInFlight null: no zone limit
 * @param window null: nodes may start at any time
 * @param migConfig the MIG config the rollout moves nodes to (its mig-parted name), or null
 * @param budget the GPUs it may have offline at once, from the logged plan's strategy like
 *     maxUnavailable (so a takeover holds it too)
 */
public record RolloutRules(
    int maxUnavailable,
    Integer maxZonesInFlight,
    Duration soak,
    Quantity perWave,
    Quantity total,
    FailureAction action,
    boolean manualPromotion,
    Duration nodeTimeout,
    MaintenanceWindow window,
    Map<String, NodePlan> plans,
    String migConfig,
    GpuBudget budget) {

  public RolloutRules {
    plans = Map.copyOf(plans);
    budget = budget == null ? GpuBudget.NONE : budget;
  }

  public static RolloutRules of(RolloutPlan plan) {
    RolloutStrategy strategy = plan.strategy();
    Map<String, NodePlan> plans = new HashMap<>();
    for (PlannedWave wave : plan.waves()) {
      for (NodePlan node : wave.nodes()) {
        plans.put(node.node(), node);
      }
    }
    return new RolloutRules(
        Math.max(1, plan.maxUnavailableNodes()),
        plan.maxZonesInFlight(),
        Duration.ofSeconds(strategy.soakSeconds()),
        Quantity.parse(strategy.failureThreshold().perWave(), "failureThreshold.perWave", 0),
        Quantity.parse(strategy.failureThreshold().total(), "failureThreshold.total", 0),
        strategy.failureThreshold().action(),
        strategy.manualPromotion(),
        Duration.ofSeconds(strategy.nodeTimeoutSeconds()),
        strategy.maintenanceWindow(),
        plans,
        plan.change() == null ? null : plan.change().migConfig(),
        GpuBudget.of(strategy));
  }

  public NodePlan plan(String node) {
    return plans.get(node);
  }

  public String zone(String node) {
    NodePlan plan = plans.get(node);
    return plan == null || plan.zone() == null ? "" : plan.zone();
  }

  /** Whether nodes may be taken out of service at {@code now}. */
  public boolean windowOpen(Instant now) {
    if (window == null) {
      return true;
    }
    ZonedDateTime local = now.atZone(ZoneId.of(window.timeZone()));
    LocalTime start = LocalTime.parse(window.start());
    LocalTime end = LocalTime.parse(window.end());
    LocalTime time = local.toLocalTime();
    if (start.isBefore(end)) {
      return !time.isBefore(start) && time.isBefore(end) && opensOn(local.getDayOfWeek());
    }
    // Over midnight: the part after midnight belongs to the day the window opened.
    if (!time.isBefore(start)) {
      return opensOn(local.getDayOfWeek());
    }
    return time.isBefore(end) && opensOn(local.getDayOfWeek().minus(1));
  }

  private boolean opensOn(DayOfWeek day) {
    List<DayOfWeek> days = window.days();
    return days.isEmpty() || days.contains(day);
  }
}
