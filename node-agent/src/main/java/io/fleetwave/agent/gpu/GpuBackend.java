package io.fleetwave.agent.gpu;

import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import java.util.List;

/**
 * The GPUs of one node, behind one interface for real hardware (NVML through java.lang.foreign,
 * sysfs) and for the simulator. Every mutating call either does what it says or throws {@link
 * GpuOperationException} naming the GPU, the operation and the reason; it never half-succeeds
 * silently. Implementations enforce docs/hardware-model.md.
 */
public interface GpuBackend extends AutoCloseable {

  /** The driver version as NVML reports it (e.g. {@code 580.95.05}). */
  String driverVersion();

  /** A consistent snapshot of every GPU, in index order, as the agent publishes it. */
  List<Gpu> inventory();

  /** Sets MIG mode; on models that need it the change stays pending until {@link #resetGpu}. */
  void setMigMode(int gpu, boolean enabled);

  /** Creates a GPU instance (and its default compute instance) at the first valid placement. */
  GpuInstance createGpuInstance(int gpu, String profile);

  /** Creates a GPU instance (and its default compute instance) at the given memory slice. */
  GpuInstance createGpuInstance(int gpu, String profile, int placementStart);

  /** Destroys the GPU instance starting at the given memory slice, with its compute instances. */
  void destroyGpuInstance(int gpu, int placementStart);

  /** Compute processes running on the GPU (any of its instances). */
  List<GpuProcess> computeProcesses(int gpu);

  /** Other clients holding the GPU open (nvidia-persistenced, DCGM, nvidia_drm, device plugin). */
  List<String> handleHolders(int gpu);

  /**
   * Resets this GPU alone. Refused while compute processes run, another client holds it, or VFs are
   * enabled; the exception names the holder.
   */
  void resetGpu(int gpu);

  /** Enables {@code count} SR-IOV VFs (0 disables). Destroys the GPU's instances (rule 4). */
  void setVfsEnabled(int gpu, int count);

  /** The enabled VFs of a GPU with their creatable and current vGPU types. */
  List<VirtualFunction> virtualFunctions(int gpu);

  /** Writes a vGPU type id to a VF ({@code 0} removes it). Must be creatable on that VF. */
  void setVgpuType(int gpu, int vf, int vgpuTypeId);

  @Override
  default void close() {}
}
