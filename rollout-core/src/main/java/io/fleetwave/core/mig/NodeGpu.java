package io.fleetwave.core.mig;

import io.fleetwave.events.node.Gpu;

/**
 * What resolution needs to know of one GPU of a node.
 *
 * @param index the GPU index on the node
 * @param pciDeviceId device + vendor id, e.g. {@code 0x233010DE}
 * @param pciSubsystemId subsystem + vendor id, or null when unknown
 */
public record NodeGpu(int index, String pciDeviceId, String pciSubsystemId) {
  public static NodeGpu of(Gpu gpu) {
    return new NodeGpu(gpu.index(), gpu.pciDeviceId(), null);
  }
}
