package io.fleetwave.agent.nvml;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;

/**
 * The nvml.h structs the agent reads, as FFM layouts (x86-64 / aarch64 LP64: unsigned int = 4
 * bytes, unsigned long long = 8 bytes aligned to 8, pointers 8). Field names follow nvml.h.
 */
final class NvmlLayouts {
  private NvmlLayouts() {}

  /** nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3 (68 bytes). */
  static final StructLayout PCI_INFO =
      structLayout(
          sequenceLayout(16, JAVA_BYTE).withName("busIdLegacy"),
          JAVA_INT.withName("domain"),
          JAVA_INT.withName("bus"),
          JAVA_INT.withName("device"),
          JAVA_INT.withName("pciDeviceId"),
          JAVA_INT.withName("pciSubSystemId"),
          sequenceLayout(32, JAVA_BYTE).withName("busId"));

  /** nvmlMemory_t (v1): total, free, used in bytes. */
  static final StructLayout MEMORY =
      structLayout(
          JAVA_LONG.withName("total"), JAVA_LONG.withName("free"), JAVA_LONG.withName("used"));

  /** nvmlGpuInstancePlacement_t: first memory slice and slice count. */
  static final StructLayout PLACEMENT =
      structLayout(JAVA_INT.withName("start"), JAVA_INT.withName("size"));

  /** nvmlGpuInstanceProfileInfo_t (48 bytes). */
  static final StructLayout GPU_INSTANCE_PROFILE_INFO =
      structLayout(
          JAVA_INT.withName("id"),
          JAVA_INT.withName("isP2pSupported"),
          JAVA_INT.withName("sliceCount"),
          JAVA_INT.withName("instanceCount"),
          JAVA_INT.withName("multiprocessorCount"),
          JAVA_INT.withName("copyEngineCount"),
          JAVA_INT.withName("decoderCount"),
          JAVA_INT.withName("encoderCount"),
          JAVA_INT.withName("jpegCount"),
          JAVA_INT.withName("ofaCount"),
          JAVA_LONG.withName("memorySizeMB"));

  /** nvmlGpuInstanceInfo_t: device handle, id, profile id, placement (24 bytes). */
  static final StructLayout GPU_INSTANCE_INFO =
      structLayout(
          ADDRESS.withName("device"),
          JAVA_INT.withName("id"),
          JAVA_INT.withName("profileId"),
          PLACEMENT.withName("placement"));

  /** nvmlComputeInstanceProfileInfo_t (9 unsigned ints). */
  static final StructLayout COMPUTE_INSTANCE_PROFILE_INFO =
      structLayout(
          JAVA_INT.withName("id"),
          JAVA_INT.withName("sliceCount"),
          JAVA_INT.withName("instanceCount"),
          JAVA_INT.withName("multiprocessorCount"),
          JAVA_INT.withName("sharedCopyEngineCount"),
          JAVA_INT.withName("sharedDecoderCount"),
          JAVA_INT.withName("sharedEncoderCount"),
          JAVA_INT.withName("sharedJpegCount"),
          JAVA_INT.withName("sharedOfaCount"));

  /** nvmlProcessInfo_t as filled by the _v3 process queries (24 bytes, padding after pid). */
  static final StructLayout PROCESS_INFO =
      structLayout(
          JAVA_INT.withName("pid"),
          paddingLayout(4),
          JAVA_LONG.withName("usedGpuMemory"),
          JAVA_INT.withName("gpuInstanceId"),
          JAVA_INT.withName("computeInstanceId"));

  static long offset(StructLayout layout, String... path) {
    PathElement[] elements = new PathElement[path.length];
    for (int i = 0; i < path.length; i++) {
      elements[i] = PathElement.groupElement(path[i]);
    }
    return layout.byteOffset(elements);
  }
}
