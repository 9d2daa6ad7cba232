package io.fleetwave.demo;

import io.fleetwave.controlplane.rollout.driver.DriverChangeExecutor;
import io.fleetwave.controlplane.rollout.driver.DriverExecutorProvider;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Adds the {@code simulator} driver executor, the demo's default (application.properties): driver
 * changes go to the simulated node, which reboots into the new driver after {@code
 * fleetwave.rollout.driver-simulator.apply-delay}.
 */
@ApplicationScoped
public class SimulatorExecutorProvider implements DriverExecutorProvider {
  private final DemoFleet demo;
  private final Duration applyDelay;

  public SimulatorExecutorProvider(
      DemoFleet demo,
      @ConfigProperty(
              name = "fleetwave.rollout.driver-simulator.apply-delay",
              defaultValue = "300ms")
          Duration applyDelay) {
    this.demo = demo;
    this.applyDelay = applyDelay;
  }

  @Override
  public String name() {
    return SimulatedDriverExecutor.NAME;
  }

  @Override
  public DriverChangeExecutor create() {
    return new SimulatedDriverExecutor(demo::fleet, applyDelay);
  }
}
