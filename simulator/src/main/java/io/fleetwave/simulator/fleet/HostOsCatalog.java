package io.fleetwave.simulator.fleet;

import static io.fleetwave.events.node.DriverProvider.DRIVER_CONTAINER;
import static io.fleetwave.events.node.DriverProvider.HOST_PACKAGE;
import static io.fleetwave.events.node.DriverProvider.OS_IMAGE;

import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.HostOs;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operating-system facts of each host kind at each OS version a fleet file may name
 * (docs/hardware-model.md): where the driver and devices live, whether the root is read-only,
 * whether systemd runs, how the driver is provided, and the kernel that OS version ships.
 */
public final class HostOsCatalog {
  /** Known OS versions per kind, first = default, each with the kernel it ships. */
  private static final Map<HostKind, Map<String, String>> KERNELS = kernels();

  private HostOsCatalog() {}

  private static Map<HostKind, Map<String, String>> kernels() {
    Map<String, String> ubuntu = new LinkedHashMap<>();
    ubuntu.put("22.04", "5.15.0-130-generic");
    ubuntu.put("24.04", "6.8.0-51-generic");
    Map<String, String> vgpuHost = new LinkedHashMap<>();
    vgpuHost.put("24.04", "6.8.0-51-generic");
    vgpuHost.put("22.04", "5.15.0-130-generic");
    Map<String, String> talos = new LinkedHashMap<>();
    talos.put("v1.10.6", "6.12.40-talos");
    talos.put("v1.9.6", "6.12.25-talos");
    Map<String, String> cos = new LinkedHashMap<>();
    cos.put("121", "6.6.87+");
    cos.put("117", "6.1.128+");
    return Map.of(
        HostKind.UBUNTU, ubuntu,
        HostKind.UBUNTU_DRIVER_CONTAINER, ubuntu,
        HostKind.TALOS, talos,
        HostKind.COS, cos,
        HostKind.VGPU_HOST, vgpuHost);
  }

  /** The OS versions a simulated host of this kind may run; the first is the default. */
  public static List<String> versions(HostKind kind) {
    return List.copyOf(KERNELS.get(kind).keySet());
  }

  public static HostOs of(HostKind kind) {
    return of(kind, versions(kind).getFirst()).orElseThrow();
  }

  /** The facts of this kind at this OS version, or empty if the version is not known. */
  public static Optional<HostOs> of(HostKind kind, String osVersion) {
    String kernel = KERNELS.get(kind).get(osVersion);
    if (kernel == null) {
      return Optional.empty();
    }
    // Devices are under / on every kind; what differs is the OS, its root and where the driver is.
    return Optional.of(
        switch (kind) {
          case UBUNTU, VGPU_HOST -> onUbuntu(kind, osVersion, kernel, "/", HOST_PACKAGE);
          case UBUNTU_DRIVER_CONTAINER ->
              onUbuntu(kind, osVersion, kernel, "/run/nvidia/driver", DRIVER_CONTAINER);
          case TALOS ->
              new HostOs(
                  kind, "talos", osVersion, kernel, true, false, "/usr/local", "/", OS_IMAGE);
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
        });
  }

  /** Ubuntu: a writable root and systemd, whoever provides the driver. */
  private static HostOs onUbuntu(
      HostKind kind, String osVersion, String kernel, String driverRoot, DriverProvider provider) {
    return new HostOs(kind, "ubuntu", osVersion, kernel, false, true, driverRoot, "/", provider);
  }
}
