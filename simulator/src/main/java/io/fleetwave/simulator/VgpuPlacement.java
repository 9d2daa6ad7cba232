package io.fleetwave.simulator;

import io.fleetwave.events.gpu.VgpuType;
import io.fleetwave.simulator.SimulatedGpu.PlacedInstance;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Which vGPU types a VF can take, as the driver's {@code creatable_vgpu_types} lists them: the list
 * is empty on a VF that already has a type and shrinks as types are placed. MIG-backed types need a
 * free GPU instance of their profile; time-sliced types need MIG off, and a GPU holds one
 * time-sliced type at a time (equal-size mode), at most {@code maxPerGpu} of it.
 */
final class VgpuPlacement {
  private VgpuPlacement() {}

  static List<VgpuType> creatable(SimulatedGpu gpu, int vf) {
    if (gpu.vgpuTypes[vf] != 0) {
      return List.of();
    }
    return gpu.model.vgpuTypes().stream().filter(t -> whyNotAny(gpu, t).isEmpty()).toList();
  }

  /** Why the type is not creatable on a free VF of this GPU. */
  static String whyNot(SimulatedGpu gpu, VgpuType type) {
    return whyNotAny(gpu, type).orElse("the VF already has a type");
  }

  private static Optional<String> whyNotAny(SimulatedGpu gpu, VgpuType type) {
    if (type.migBacked()) {
      if (!gpu.migCurrent) {
        return Optional.of("MIG-backed types need MIG mode enabled");
      }
      if (placed(gpu).anyMatch(t -> !t.migBacked())) {
        return Optional.of("time-sliced vGPUs are placed on this GPU");
      }
      boolean free =
          gpu.instances.stream()
              .anyMatch(i -> i.profile().name().equals(type.migProfile()) && i.vgpuVf() < 0);
      return free
          ? Optional.empty()
          : Optional.of("needs a free GPU instance of profile " + type.migProfile());
    }
    if (gpu.migCurrent) {
      return Optional.of("time-sliced types need MIG mode disabled");
    }
    Optional<VgpuType> other = placed(gpu).filter(t -> t.id() != type.id()).findFirst();
    if (other.isPresent()) {
      return Optional.of("the GPU already holds time-sliced type " + other.get().name());
    }
    long count = placed(gpu).filter(t -> t.id() == type.id()).count();
    if (count >= type.maxPerGpu()) {
      return Optional.of("at most " + type.maxPerGpu() + " of " + type.name() + " fit on one GPU");
    }
    return Optional.empty();
  }

  /** A time-sliced type placed on the GPU, if any: MIG mode cannot be enabled under it. */
  static Optional<VgpuType> timeSliced(SimulatedGpu gpu) {
    return placed(gpu).filter(t -> !t.migBacked()).findFirst();
  }

  static void place(SimulatedGpu gpu, int vf, VgpuType type) {
    if (type.migBacked()) {
      for (int i = 0; i < gpu.instances.size(); i++) {
        PlacedInstance instance = gpu.instances.get(i);
        if (instance.profile().name().equals(type.migProfile()) && instance.vgpuVf() < 0) {
          gpu.instances.set(i, new PlacedInstance(instance.profile(), instance.start(), vf));
          break;
        }
      }
    }
    gpu.vgpuTypes[vf] = type.id();
  }

  static void remove(SimulatedGpu gpu, int vf) {
    for (int i = 0; i < gpu.instances.size(); i++) {
      PlacedInstance instance = gpu.instances.get(i);
      if (instance.vgpuVf() == vf) {
        gpu.instances.set(i, new PlacedInstance(instance.profile(), instance.start(), -1));
      }
    }
    gpu.vgpuTypes[vf] = 0;
  }

  private static java.util.stream.Stream<VgpuType> placed(SimulatedGpu gpu) {
    return Arrays.stream(gpu.vgpuTypes)
        .filter(id -> id != 0)
        .mapToObj(
            id ->
                gpu.model.vgpuTypes().stream().filter(t -> t.id() == id).findFirst().orElseThrow());
  }
}
