package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.driver.DriverVersion;
import io.fleetwave.core.mig.MigConfig;
import io.fleetwave.core.selector.LabelSelector;
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
