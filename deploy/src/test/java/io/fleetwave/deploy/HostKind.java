package io.fleetwave.deploy;

/** The host kinds of the fleet, one agent overlay each under deploy/agent/overlays. */
enum HostKind {
  UBUNTU("ubuntu", true),
  DRIVER_CONTAINER("driver-container", true),
  TALOS("talos", false),
  COS("cos", false),
  VGPU_HOST("vgpu-host", true);

  final String overlay;

  /** Whether the host runs systemd with a D-Bus system bus the agent talks to. */
  final boolean systemd;

  HostKind(String overlay, boolean systemd) {
    this.overlay = overlay;
    this.systemd = systemd;
  }

  String dir() {
    return "agent/overlays/" + overlay;
  }
}
