package io.fleetwave.core.rollout.plan;

/** A GPU of a planned node that keeps its state (no config entry matched it), and why. */
public record UntouchedGpu(int gpuIndex, String pciDeviceId, String reason) {}
