package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.driver.DriverArtifactResolver;
import io.fleetwave.core.mig.MigConfigRegistry;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
 *   <li>Order the planned nodes for coverage and cut them into waves and batches ({@link
 *       WaveScheduler}); maxUnavailable is resolved against the planned nodes.
 *   <li>Compute the capacity impact per GPU model ({@link CapacityCalculator}).
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
        case NodeOutcome.Planned p ->
            planned.add(new WaveScheduler.Candidate(p.plan(), kind(node)));
        case NodeOutcome.Excluded e -> excluded.add(e.excluded());
      }
    }
    excluded.sort(Comparator.comparing(ExcludedNode::node));
    int maxUnavailable = Math.max(1, rollout.maxUnavailable().resolve(planned.size()));
    List<PlannedWave> waves =
        WaveScheduler.schedule(
            planned,
            strategy.waves(),
            rollout.waves(),
            maxUnavailable,
            strategy.maxZonesInFlight());
    return new RolloutPlan(
        spec.name(),
        spec.change(),
        strategy,
        planned.size(),
        maxUnavailable,
        strategy.maxZonesInFlight(),
        waves,
        excluded,
        CapacityCalculator.compute(fleet, waves, catalog));
  }

  /** The failure domain of a node: the zone label, else the zone its agent reported. */
  public static String zone(FleetNode node, String zoneLabel) {
    String labelled = node.labels().get(zoneLabel);
    if (labelled != null && !labelled.isBlank()) {
      return labelled;
    }
    return node.zone() == null || node.zone().isBlank() ? UNKNOWN_ZONE : node.zone();
  }

  private String kind(FleetNode node) {
    return node.hostKind().wireName()
        + "/"
        + node.gpus().stream()
            .map(
                g -> catalog.find(g.pciDeviceId()).map(GpuModel::shortName).orElse(g.pciDeviceId()))
            .distinct()
            .sorted()
            .collect(Collectors.joining("+"));
  }
}
