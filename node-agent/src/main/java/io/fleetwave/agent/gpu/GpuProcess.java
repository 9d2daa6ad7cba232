package io.fleetwave.agent.gpu;

/** A compute process on a GPU. */
public record GpuProcess(long pid, String name, long usedMemoryMiB) {}
