package io.fleetwave.core.mig;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One device-filter value: a PCI device id + vendor ({@code 0x233010DE}), optionally with a
 * subsystem id + vendor ({@code 0x233010DE:0x16C110DE}).
 *
 * @param deviceId normalised to {@code 0x} + eight upper-case hex digits
 * @param subsystemId normalised the same way, or null when the filter does not name one
 */
public record PciDeviceFilter(String deviceId, String subsystemId) {
  private static final Pattern ID = Pattern.compile("0[xX][0-9a-fA-F]{8}");

  public PciDeviceFilter {
    Objects.requireNonNull(deviceId, "deviceId");
  }

  /** Parses a filter value; throws IllegalArgumentException saying what a valid one looks like. */
  public static PciDeviceFilter parse(String text) {
    String[] parts = text.trim().split(":", -1);
    if (parts.length > 2 || !ID.matcher(parts[0]).matches()) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a PCI device id: expected 0xDDDDVVVV (device + vendor, e.g. 0x233010DE),"
              + " optionally followed by :0xSSSSVVVV (subsystem)");
    }
    if (parts.length == 2 && !ID.matcher(parts[1]).matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' has a malformed subsystem id: expected :0xSSSSVVVV after the device id");
    }
    return new PciDeviceFilter(normalize(parts[0]), parts.length == 2 ? normalize(parts[1]) : null);
  }

  /** Normalises a PCI id the way filters hold it ({@code 0x} + upper-case hex). */
  public static String normalize(String id) {
    String hex = id.trim();
    if (hex.startsWith("0x") || hex.startsWith("0X")) {
      hex = hex.substring(2);
    }
    return "0x" + hex.toUpperCase(Locale.ROOT);
  }

  /**
   * Whether a GPU matches. A filter naming a subsystem only matches GPUs whose subsystem is known
   * and equal; one without a subsystem matches any.
   */
  public boolean matches(String gpuDeviceId, String gpuSubsystemId) {
    if (!deviceId.equals(normalize(gpuDeviceId))) {
      return false;
    }
    return subsystemId == null
        || (gpuSubsystemId != null && subsystemId.equals(normalize(gpuSubsystemId)));
  }

  @Override
  public String toString() {
    return subsystemId == null ? deviceId : deviceId + ":" + subsystemId;
  }
}
