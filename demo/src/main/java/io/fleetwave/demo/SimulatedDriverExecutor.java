package io.fleetwave.demo;

import io.fleetwave.controlplane.rollout.driver.DriverChangeException;
import io.fleetwave.controlplane.rollout.driver.DriverChangeExecutor;
import io.fleetwave.controlplane.rollout.driver.DriverChangeRequest;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.SimulatedNode;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Demo only ({@code simulator}): hands each driver change to the simulated node of the demo fleet,
 * which reboots into the new driver after {@code fleetwave.rollout.driver-simulator.apply-delay}
 * and re-registers with it ({@link SimulatedNode#installDriver(String, Duration)}); on Talos and
 * COS that stands for the reboot into an OS image carrying the driver. A repeated request is
 * harmless: the node installs each version once.
 */
public final class SimulatedDriverExecutor implements DriverChangeExecutor {
  public static final String NAME = "simulator";
  static final Duration HAND_OVER_BOUND = Duration.ofSeconds(5);

  private final Supplier<Optional<SimulatedFleet>> fleet;
  private final Duration applyDelay;

  /**
   * @param fleet the running demo fleet (empty until it has started, or outside demo mode)
   * @param applyDelay simulated time from the hand-over to the node's reboot into the driver
   */
  public SimulatedDriverExecutor(Supplier<Optional<SimulatedFleet>> fleet, Duration applyDelay) {
    this.fleet = Objects.requireNonNull(fleet, "fleet");
    this.applyDelay = Objects.requireNonNull(applyDelay, "applyDelay");
    if (applyDelay.isNegative()) {
      throw new IllegalArgumentException(
          "fleetwave.rollout.driver-simulator.apply-delay must not be negative, was " + applyDelay);
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Uni<Void> request(DriverChangeRequest request) {
    return Uni.createFrom()
        .item(
            () -> {
              handOver(request);
              return (Void) null;
            })
        // The node's lock is held through a reboot in progress: wait for it off the event loop.
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
        .ifNoItem()
        .after(HAND_OVER_BOUND)
        .failWith(
            () ->
                new DriverChangeException(
                    NAME,
                    request,
                    "the simulated node did not take the request within " + HAND_OVER_BOUND));
  }

  // The install's future is not awaited: as with a real executor, the engine learns the outcome
  // from the node itself (it reports the new driver).
  @SuppressWarnings("FutureReturnValueIgnored")
  private void handOver(DriverChangeRequest request) {
    SimulatedFleet running =
        fleet
            .get()
            .orElseThrow(
                () ->
                    new DriverChangeException(
                        NAME,
                        request,
                        "no simulated fleet is running (fleetwave.demo.enabled=false)"));
    SimulatedNode node =
        running
            .node(request.node())
            .orElseThrow(
                () ->
                    new DriverChangeException(
                        NAME, request, "the demo fleet has no node " + request.node()));
    DriverProvider provider = node.facts().driverProvider();
    if (request.osUpgrade() != (provider == DriverProvider.OS_IMAGE)) {
      throw new DriverChangeException(
          NAME,
          request,
          "the node gets its driver as "
              + provider.wireName()
              + ", which cannot take "
              + request.artifact().describe());
    }
    try {
      node.installDriver(request.toVersion(), applyDelay);
    } catch (IllegalStateException e) {
      throw new DriverChangeException(NAME, request, e.getMessage(), e);
    }
  }
}
