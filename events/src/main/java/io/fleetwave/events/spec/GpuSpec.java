package io.fleetwave.events.spec;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The desired state of one GPU. Checks here are the ones that need no GPU model; whether profiles
 * and vGPU types exist and fit is decided against the catalogue by the reconciler (and the API).
 *
 * @param index the GPU index on its node
 * @param migEnabled whether MIG mode is wanted on
 * @param instances GPU instances wanted, by profile name ({@code 1g.10gb -> 2}); empty unless MIG
 * @param vfs SR-IOV virtual functions wanted enabled (0: SR-IOV off)
 * @param vgpuTypes the vGPU type name wanted on each VF index; VFs not listed get no type
 */
public record GpuSpec(
    int index,
    boolean migEnabled,
    Map<String, Integer> instances,
    int vfs,
    Map<Integer, String> vgpuTypes) {

  public GpuSpec {
    notNegative(index, "index");
    notNegative(vfs, "vfs");
    instances = sorted(instances);
    vgpuTypes = sorted(vgpuTypes);
    for (Map.Entry<String, Integer> wanted : instances.entrySet()) {
      notBlank(wanted.getKey(), "instances");
      if (wanted.getValue() == null || wanted.getValue() <= 0) {
        throw new IllegalArgumentException(
            "field 'instances." + wanted.getKey() + "' must be positive: " + wanted.getValue());
      }
    }
    if (!migEnabled && !instances.isEmpty()) {
      throw new IllegalArgumentException(
          "field 'instances' must be empty when 'migEnabled' is false, got " + instances);
    }
    for (Map.Entry<Integer, String> type : vgpuTypes.entrySet()) {
      if (type.getKey() == null || type.getKey() < 0 || type.getKey() >= vfs) {
        throw new IllegalArgumentException(
            "field 'vgpuTypes' names VF "
                + type.getKey()
                + " but 'vfs' is "
                + vfs
                + " (VFs are numbered from 0)");
      }
      notBlank(type.getValue(), "vgpuTypes." + type.getKey());
    }
  }

  /** Total GPU instances wanted. */
  public int instanceCount() {
    return instances.values().stream().mapToInt(Integer::intValue).sum();
  }

  // Sorted, so the encoded JSON (and so the signed bytes) does not depend on map order.
  private static <K extends Comparable<K>, V> SortedMap<K, V> sorted(Map<K, V> map) {
    if (map == null) {
      return Collections.emptySortedMap();
    }
    if (map.keySet().stream().anyMatch(java.util.Objects::isNull)) {
      throw new IllegalArgumentException("a map key must not be null");
    }
    return Collections.unmodifiableSortedMap(new TreeMap<>(map));
  }
}
