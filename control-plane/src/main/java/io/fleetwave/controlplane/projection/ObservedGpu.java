package io.fleetwave.controlplane.projection;

import java.util.Map;

/**
 * One GPU as the projection last saw it: what a spec is validated against.
 *
 * @param migEnabled whether MIG mode is on now
 * @param instances GPU instances now, counted by profile
 * @param vfsTotal virtual functions the host offers (0: no SR-IOV here, e.g. no vGPU driver)
 * @param vfsEnabled virtual functions enabled now
 */
public record ObservedGpu(
    int index,
    String pciDeviceId,
    String product,
    boolean migEnabled,
    Map<String, Integer> instances,
    int vfsTotal,
    int vfsEnabled) {
  public ObservedGpu {
    instances = Map.copyOf(instances);
  }
}
