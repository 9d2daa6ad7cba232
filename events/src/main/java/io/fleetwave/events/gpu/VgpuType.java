package io.fleetwave.events.gpu;

/**
 * A vGPU type a VF of this model can be given.
 *
 * @param id the id written to {@code current_vgpu_type}
 * @param name e.g. {@code H100-1-10C}
 * @param migProfile for MIG-backed types, the GPU-instance profile that must exist first; else null
 * @param framebufferMiB for time-sliced types, the memory each instance takes; 0 for MIG-backed
 * @param maxPerGpu for time-sliced types, how many fit on one GPU; 0 for MIG-backed
 */
public record VgpuType(int id, String name, String migProfile, long framebufferMiB, int maxPerGpu) {
  public boolean migBacked() {
    return migProfile != null;
  }
}
