package io.fleetwave.simulator.fleet;

import io.fleetwave.events.gpu.GpuModel;

/** {@code count} GPUs of one model in each node of a group. */
public record GpuGroup(GpuModel model, int count) {}
