package io.fleetwave.simulator;

import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigProfile;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The mutable state of one simulated GPU. Not thread-safe on its own: {@link SimulatedGpuBackend}
 * guards every access with its lock and enforces the rules; this class only holds and reports.
 */
final class SimulatedGpu {
  /** A GPU instance with its default compute instance; {@code vgpuVf} is the VF using it, or -1. */
  record PlacedInstance(MigProfile profile, int start, int vgpuVf) {
    int end() {
      return start + profile.memorySlices();
    }

    boolean overlaps(int otherStart, int otherSize) {
      return start < otherStart + otherSize && otherStart < end();
    }

    GpuInstance toEvent() {
      return new GpuInstance(profile.name(), start, profile.memorySlices());
    }
  }

  final int index;
  final GpuModel model;
  final String uuid;
  final String pciBusId;
  final int vfsTotal;

  boolean migCurrent;
  boolean migPending;
  final List<PlacedInstance> instances = new ArrayList<>();
  int vfsEnabled;
  int[] vgpuTypes = new int[0];
  final Map<Long, GpuProcess> processes = new LinkedHashMap<>();
  final Set<String> handles = new LinkedHashSet<>();
  GpuHealth health = GpuHealth.HEALTHY;

  SimulatedGpu(int index, GpuModel model, String uuid, String pciBusId, int vfsTotal) {
    this.index = index;
    this.model = model;
    this.uuid = uuid;
    this.pciBusId = pciBusId;
    this.vfsTotal = vfsTotal;
  }

  void enableVfs(int count) {
    vfsEnabled = count;
    vgpuTypes = new int[count];
  }

  int computeSlicesUsed() {
    return instances.stream().mapToInt(i -> i.profile().computeSlices()).sum();
  }

  long countOf(MigProfile profile) {
    return instances.stream().filter(i -> i.profile().name().equals(profile.name())).count();
  }

  boolean hasMediaExtensions() {
    return instances.stream().anyMatch(i -> i.profile().mediaExtensions());
  }

  /** The VF's PCI address: functions of the next bus, eight per device (as ARI lays them out). */
  String vfBusId(int vf) {
    String[] parts = pciBusId.split(":", -1);
    int bus = Integer.parseInt(parts[1], 16) + 1;
    return "%s:%02x:%02x.%d".formatted(parts[0], bus, vf / 8, vf % 8);
  }

  Gpu toEvent() {
    MigMode current = !model.migCapable() ? MigMode.UNSUPPORTED : mode(migCurrent);
    MigMode pending = !model.migCapable() ? MigMode.UNSUPPORTED : mode(migPending);
    return new Gpu(
        index,
        uuid,
        pciBusId,
        model.pciDeviceId(),
        model.product(),
        model.memoryMiB(),
        model.migCapable(),
        current,
        pending,
        instances.stream()
            .sorted(Comparator.comparingInt(PlacedInstance::start))
            .map(PlacedInstance::toEvent)
            .toList(),
        vfsTotal,
        vfsEnabled,
        health);
  }

  private static MigMode mode(boolean enabled) {
    return enabled ? MigMode.ENABLED : MigMode.DISABLED;
  }

  int[] vgpuTypesCopy() {
    return Arrays.copyOf(vgpuTypes, vgpuTypes.length);
  }
}
