package io.fleetwave.controlplane.mig.store;

import io.fleetwave.core.mig.DeviceSelection;
import io.fleetwave.core.mig.MigConfigEntry;
import io.fleetwave.core.mig.PciDeviceFilter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One entry of a MIG config in JSON, field for field as mig-parted names them.
 *
 * @param deviceFilter PCI ids ({@code 0x233010DE}, optionally {@code :subsystem}); empty: any GPU
 * @param devices {@code "all"} or a list of GPU indices
 * @param migDevices profile to count, in file order; empty when MIG is disabled
 */
public record MigEntryView(
    List<String> deviceFilter,
    Object devices,
    boolean migEnabled,
    Map<String, Integer> migDevices) {
  public MigEntryView {
    deviceFilter = List.copyOf(deviceFilter);
    migDevices = new LinkedHashMap<>(migDevices);
  }

  public static MigEntryView of(MigConfigEntry entry) {
    Object devices =
        switch (entry.devices()) {
          case DeviceSelection.All all -> "all";
          case DeviceSelection.Indices indices -> List.copyOf(indices.indices());
        };
    return new MigEntryView(
        entry.deviceFilter().stream().map(PciDeviceFilter::toString).toList(),
        devices,
        entry.migEnabled(),
        entry.migDevices());
  }

  /** One line for listings: {@code 0x233010DE devices all: 3g.40gb x2}. */
  public String summary() {
    String gpus = deviceFilter.isEmpty() ? "any GPU" : String.join(",", deviceFilter);
    String layout =
        !migEnabled
            ? "MIG disabled"
            : migDevices.isEmpty()
                ? "MIG enabled, no instances"
                : migDevices.entrySet().stream()
                    .map(e -> e.getKey() + " x" + e.getValue())
                    .collect(Collectors.joining(", "));
    return gpus + " devices " + devices + ": " + layout;
  }
}
