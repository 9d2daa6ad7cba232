package io.fleetwave.core.rollout.plan;

/**
 * What a rollout changes: a MIG layout (a mig-parted config name), a driver version, or both.
 *
 * @param migConfig config name in the MIG config registry, or null
 * @param driverVersion e.g. {@code 580.95.05}, or null
 */
public record RolloutChange(String migConfig, String driverVersion) {}
