package io.fleetwave.simulator.fleet;

import static io.fleetwave.events.node.DriverProvider.DRIVER_CONTAINER;
import static io.fleetwave.events.node.DriverProvider.HOST_PACKAGE;
import static io.fleetwave.events.node.DriverProvider.OS_IMAGE;

import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.HostOs;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operating-system facts of each host kind at each OS version a fleet file may name
 * (docs/hardware-model.md): where the driver and devices live, whether the root is read-only,
 * whether systemd runs, how the driver is provided, and the kernel that OS version ships.
 */
public final class HostOsCatalog {
  /** An OS version and the kernel it ships. */
  private record Release(String osVersion, String kernel) {}

  private static final Release UBUNTU_22_04 = new Release("22.04", "5.15.0-130-generic");
  private static final Release UBUNTU_24_04 = new Release("24.04", "6.8.0-51-generic");

  /** Known OS versions per kind, first = default. */
  private static final Map<HostKind, List<Release>> RELEASES =
      Map.of(
          HostKind.UBUNTU, List.of(UBUNTU_22_04, UBUNTU_24_04),
          HostKind.UBUNTU_DRIVER_CONTAINER, List.of(UBUNTU_22_04, UBUNTU_24_04),
          HostKind.TALOS,
              List.of(
                  new Release("v1.10.6", "6.12.40-talos"), new Release("v1.9.6", "6.12.25-talos")),
          HostKind.COS, List.of(new Release("121", "6.6.87+"), new Release("117", "6.1.128+")),
          HostKind.VGPU_HOST, List.of(UBUNTU_24_04, UBUNTU_22_04));

  private HostOsCatalog() {}

  /** The OS versions a simulated host of this kind may run; the first is the default. */
  public static List<String> versions(HostKind kind) {
    return RELEASES.get(kind).stream().map(Release::osVersion).toList();
  }

  public static HostOs of(HostKind kind) {
    return of(kind, versions(kind).getFirst()).orElseThrow();
  }

  /** The facts of this kind at this OS version, or empty if the version is not known. */
  public static Optional<HostOs> of(HostKind kind, String osVersion) {
    return RELEASES.get(kind).stream()
        .filter(release -> release.osVersion().equals(osVersion))
        .findFirst()
        .map(release -> facts(kind, osVersion, release.kernel()));
  }

  // Devices are under / on every kind; what differs is the OS, its root and where the driver is.
  private static HostOs facts(HostKind kind, String osVersion, String kernel) {
    return switch (kind) {
      case UBUNTU, VGPU_HOST -> onUbuntu(kind, osVersion, kernel, "/", HOST_PACKAGE);
      case UBUNTU_DRIVER_CONTAINER ->
          onUbuntu(kind, osVersion, kernel, "/run/nvidia/driver", DRIVER_CONTAINER);
      case TALOS ->
          new HostOs(kind, "talos", osVersion, kernel, true, false, "/usr/local", "/", OS_IMAGE);
      case COS ->
          new HostOs(
              kind,
              "cos",
              osVersion,
              kernel,
              true,
              true,
              "/home/kubernetes/bin/nvidia",
              "/",
              OS_IMAGE);
    };
  }

  /** Ubuntu: a writable root and systemd, whoever provides the driver. */
  private static HostOs onUbuntu(
      HostKind kind, String osVersion, String kernel, String driverRoot, DriverProvider provider) {
    return new HostOs(kind, "ubuntu", osVersion, kernel, false, true, driverRoot, "/", provider);
  }
}
