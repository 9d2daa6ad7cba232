package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.driver.DriverArtifactResolver;
import io.fleetwave.core.mig.MigConfigRegistry;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.HostKind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Plans a rollout: a pure function of the fleet snapshot, the request, the MIG configs and the
 * driver artifact rules. The same inputs always give the same plan, whatever the order of the
 * fleet's nodes.
 *
 * <ol>
 *   <li>Validate the request ({@link RolloutSpecValidator}); refuse it whole if anything is wrong.
 *   <li>Select the targeted nodes (target fields AND together); named nodes missing from the fleet
 *       are excluded as {@link ExclusionReason#NOT_IN_FLEET}, revoked ones as {@link
 *       ExclusionReason#REVOKED}.
 *   <li>Per node, work out the exact actions or the reason it is excluded ({@link
 *       NodeChangePlanner}).
 *   <li>Refuse a node that alone exceeds the GPU budget ({@link GpuBudget}): it could never start.
 *   <li>Order the planned nodes for coverage and cut them into waves and batches ({@link
 *       WaveScheduler}); maxUnavailable is resolved against the planned nodes.
 *   <li>Compute the capacity impact per GPU model ({@link CapacityCalculator}) and per wave what
 *       goes offline at once and for how long ({@link WaveForecaster}).
 * </ol>
 */
public final class RolloutPlanner {
  /** The zone a node counts in when it has neither the zone label nor a reported zone. */
  public static final String UNKNOWN_ZONE = "<no zone>";

  private final GpuCatalog catalog;
  private final RolloutSpecValidator validator;
  private final NodeChangePlanner nodes;

  public RolloutPlanner(
      GpuCatalog catalog, MigConfigRegistry migConfigs, DriverArtifactResolver drivers) {
    this.catalog = catalog;
    this.validator = new RolloutSpecValidator(catalog, migConfigs);
    this.nodes = new NodeChangePlanner(catalog, drivers);
  }

  /**
   * @throws RolloutSpecException if the request is invalid (HTTP 422), listing every problem
   */
  public RolloutPlan plan(RolloutSpec spec, FleetSnapshot fleet) {
    return plan(spec, fleet, ApplyTimes.NONE);
  }

  /**
   * @param times apply times measured in past rollouts, for the expected duration of each wave
   * @throws RolloutSpecException if the request is invalid (HTTP 422), listing every problem
   */
  public RolloutPlan plan(RolloutSpec spec, FleetSnapshot fleet, ApplyTimes times) {
    ValidRollout rollout = validator.check(spec);
    RolloutStrategy strategy = spec.strategy();
    TargetMatcher target = new TargetMatcher(spec.target(), rollout.selector(), catalog);
    List<ExcludedNode> excluded = new ArrayList<>();
    for (String missing : target.missing(fleet)) {
      excluded.add(
          new ExcludedNode(
              missing,
              ExclusionReason.NOT_IN_FLEET,
              "the target names it but the fleet has no such node"));
    }
    List<WaveScheduler.Candidate> planned = new ArrayList<>();
    Map<String, String> kinds = new HashMap<>();
    for (FleetNode node : fleet.nodes()) {
      if (!target.matches(node)) {
        continue;
      }
      if (fleet.revoked().contains(node.name())) {
        excluded.add(
            new ExcludedNode(
                node.name(),
                ExclusionReason.REVOKED,
                "an admin revoked the node; it is left out until it is re-admitted"));
        continue;
      }
      switch (nodes.plan(node, rollout, zone(node, strategy.zoneLabel()))) {
        case NodeOutcome.Planned p -> {
          kinds.put(node.name(), kind(node));
          planned.add(new WaveScheduler.Candidate(p.plan(), kinds.get(node.name())));
        }
        case NodeOutcome.Excluded e -> excluded.add(e.excluded());
      }
    }
    excluded.sort(Comparator.comparing(ExcludedNode::node));
    GpuBudget budget = GpuBudget.of(strategy);
    List<RolloutSpecProblem> tooLarge =
        planned.stream()
            .map(c -> budget.exceededAlone(c.plan()))
            .flatMap(Optional::stream)
            .sorted(Comparator.comparing(RolloutSpecProblem::message))
            .toList();
    if (!tooLarge.isEmpty()) {
      throw new RolloutSpecException(tooLarge);
    }
    int maxUnavailable = Math.max(1, rollout.maxUnavailable().resolve(planned.size()));
    List<PlannedWave> waves =
        WaveScheduler.schedule(
            planned,
            strategy.waves(),
            rollout.waves(),
            maxUnavailable,
            strategy.maxZonesInFlight(),
            budget);
    return new RolloutPlan(
        spec.name(),
        spec.change(),
        strategy,
        planned.size(),
        maxUnavailable,
        strategy.maxZonesInFlight(),
        waves,
        excluded,
        CapacityCalculator.compute(fleet, waves, catalog),
        WaveForecaster.forecast(waves, fleet, kinds, times, catalog, strategy));
  }

  /** The failure domain of a node: the zone label, else the zone its agent reported. */
  public static String zone(FleetNode node, String zoneLabel) {
    String labelled = node.labels().get(zoneLabel);
    if (labelled != null && !labelled.isBlank()) {
      return labelled;
    }
    return node.zone() == null || node.zone().isBlank() ? UNKNOWN_ZONE : node.zone();
  }

  /** The kind a node counts as for ordering and apply times: {@code ubuntu/H100-80GB}. */
  private String kind(FleetNode node) {
    return kind(node.hostKind(), node.gpus().stream().map(Gpu::pciDeviceId).toList(), catalog);
  }

  /**
   * The kind of a node of {@code hostKind} with GPUs of these PCI device ids: its host kind and its
   * distinct GPU models, sorted ({@code ubuntu/H100-80GB}, {@code ubuntu/A100-40GB+L40S}).
   */
  public static String kind(
      HostKind hostKind, Collection<String> pciDeviceIds, GpuCatalog catalog) {
    return hostKind.wireName()
        + "/"
        + pciDeviceIds.stream()
            .map(id -> catalog.find(id).map(GpuModel::shortName).orElse(id))
            .distinct()
            .sorted()
            .collect(Collectors.joining("+"));
  }
}
