package io.fleetwave.core.mig;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One entry of a named config: which GPUs it applies to and what it wants of them.
 *
 * @param position 1-based position of the entry within its config
 * @param line line of the entry in the source file (0 when built in code)
 * @param deviceFilter PCI ids the entry is limited to; empty means every GPU model
 * @param devices GPU indices it is limited to
 * @param migEnabled the MIG mode it sets
 * @param migDevices profile name to instance count, in file order; empty when MIG is disabled
 */
public record MigConfigEntry(
    int position,
    int line,
    List<PciDeviceFilter> deviceFilter,
    DeviceSelection devices,
    boolean migEnabled,
    Map<String, Integer> migDevices) {

  public MigConfigEntry {
    deviceFilter = List.copyOf(deviceFilter);
    migDevices = Collections.unmodifiableMap(new LinkedHashMap<>(migDevices));
    if (!migEnabled && !migDevices.isEmpty()) {
      throw new IllegalArgumentException("mig-devices given while mig-enabled is false");
    }
  }

  /** Whether this entry applies to the GPU at {@code index} with these PCI ids. */
  public boolean matches(int index, String pciDeviceId, String pciSubsystemId) {
    boolean modelMatches =
        deviceFilter.isEmpty()
            || deviceFilter.stream().anyMatch(f -> f.matches(pciDeviceId, pciSubsystemId));
    return modelMatches && devices.includes(index);
  }

  /** How this entry is named in messages: {@code config 'all-balanced' entry 3 (line 120)}. */
  public String describe(String configName) {
    return "config '"
        + configName
        + "' entry "
        + position
        + (line > 0 ? " (line " + line + ")" : "");
  }
}
