package io.fleetwave.agent.reset;

/**
 * The one GPU a reset is for.
 *
 * @param index NVML index (for messages)
 * @param pciBusId PCI bus id (sysfs form, e.g. {@code 0000:3b:00.0})
 * @param minor device-node minor number ({@code dev/nvidia<minor>})
 */
public record ResetTarget(int index, String pciBusId, int minor) {}
