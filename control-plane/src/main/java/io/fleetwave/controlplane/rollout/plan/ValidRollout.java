package io.fleetwave.controlplane.rollout.plan;

import io.fleetwave.controlplane.driver.DriverVersion;
import io.fleetwave.controlplane.mig.MigConfig;
import io.fleetwave.controlplane.selector.LabelSelector;
import java.util.List;

/**
 * A rollout request that passed validation, with its parts parsed.
 *
 * @param migConfig the named config, or null when the layout does not change
 * @param driverVersion the target driver, or null when the driver does not change
 */
public record ValidRollout(
    RolloutSpec spec,
    LabelSelector selector,
    List<Quantity> waves,
    Quantity maxUnavailable,
    MigConfig migConfig,
    DriverVersion driverVersion) {
  public ValidRollout {
    waves = List.copyOf(waves);
  }
}
