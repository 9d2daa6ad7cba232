package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;

/**
 * One MIG GPU instance.
 *
 * @param profile profile name, e.g. {@code 3g.40gb}
 * @param placementStart first memory slice
 * @param placementSize number of memory slices
 */
public record GpuInstance(String profile, int placementStart, int placementSize) {
  public GpuInstance {
    notBlank(profile, "profile");
    notNegative(placementStart, "placementStart");
    if (placementSize <= 0) {
      throw new IllegalArgumentException(
          "field 'placementSize' must be positive: " + placementSize);
    }
  }
}
