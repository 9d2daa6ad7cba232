package io.fleetwave.controlplane.rollout.drain;

import io.fleetwave.core.rollout.disruption.NodeOutage;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.List;

/**
 * The default off Kubernetes: nodes stay in service while they change; the device-plugin gate alone
 * keeps new work off GPUs that are being reconfigured. Inactive, so the engine never calls it.
 */
public final class NoDrain implements NodeDrain {
  public static final String NAME = "none";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean active() {
    return false;
  }

  @Override
  public Duration bound() {
    return Duration.ZERO;
  }

  @Override
  public Uni<NodeTakenOutOfService> takeOutOfService(NodeOutage outage) {
    return Uni.createFrom()
        .item(
            new NodeTakenOutOfService(
                outage.node(), outage.phase(), false, false, List.of(), List.of(), null, null, 0));
  }

  @Override
  public Uni<Void> rebooting(NodeOutage outage) {
    return Uni.createFrom().voidItem();
  }

  @Override
  public Uni<NodeReturnedToService> returnToService(NodeOutage outage) {
    return Uni.createFrom()
        .item(new NodeReturnedToService(outage.node(), outage.phase(), false, List.of(), null));
  }

  @Override
  public Uni<NodeKeptOutOfService> keepOutOfService(NodeOutage outage, String reason) {
    return Uni.createFrom()
        .item(new NodeKeptOutOfService(outage.node(), outage.phase(), List.of(), reason));
  }
}
