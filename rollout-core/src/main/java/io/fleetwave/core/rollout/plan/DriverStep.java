package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.driver.DriverArtifact;

/**
 * The driver change of one node.
 *
 * @param fromVersion the loaded driver, or null
 * @param osUpgradeNeeded true when the driver comes with the OS image (Talos, COS): execution emits
 *     an OsUpgradeRequested action instead of touching modules
 */
public record DriverStep(
    String fromVersion, String toVersion, DriverArtifact artifact, boolean osUpgradeNeeded) {}
