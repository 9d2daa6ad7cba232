package io.fleetwave.testfixtures.events;

import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.HostOs;
import io.fleetwave.events.node.NodeRegistered;
import java.util.Map;

/**
 * {@link NodeRegistered} (fourteen fields) by name instead of by position. {@link #forHost} starts
 * from the facts an agent reports on that kind of host; set only what the test is about.
 */
public final class NodeRegisteredBuilder {
  private String hostname;
  private HostKind hostKind;
  private String osId;
  private String osVersion;
  private String kernel;
  private boolean readOnlyRoot;
  private boolean systemd;
  private String driverRoot;
  private String deviceRoot = "/";
  private DriverProvider driverProvider;
  private String driverVersion = "580.95.05";
  private String zone = "zone-a";
  private Map<String, String> labels = Map.of();
  private Map<String, String> reasons = Map.of();

  private NodeRegisteredBuilder() {}

  /**
   * The facts of a typical host of that kind: Talos 1.11 and COS 121 (read-only root, the driver
   * from the OS image), Ubuntu 24.04 with the host's driver package or, for {@code
   * ubuntu-driver-container}, the GPU Operator's driver container.
   */
  public static NodeRegisteredBuilder forHost(String hostname, HostKind kind) {
    NodeRegisteredBuilder b = new NodeRegisteredBuilder();
    b.hostname = hostname;
    // As HostOsCatalog's table in the simulator: the kinds' facts at one version each.
    b.hostOs(
        switch (kind) {
          case TALOS ->
              new HostOs(
                  kind,
                  "talos",
                  "1.11.2",
                  "6.12.48-talos",
                  true,
                  false,
                  "/usr/local",
                  "/",
                  DriverProvider.OS_IMAGE);
          case COS ->
              new HostOs(
                  kind,
                  "cos",
                  "121",
                  "6.6.87+",
                  true,
                  true,
                  "/home/kubernetes/bin/nvidia",
                  "/",
                  DriverProvider.OS_IMAGE);
          case UBUNTU_DRIVER_CONTAINER ->
              onUbuntu(kind, "/run/nvidia/driver", DriverProvider.DRIVER_CONTAINER);
          case UBUNTU, VGPU_HOST -> onUbuntu(kind, "/", DriverProvider.HOST_PACKAGE);
        });
    return b;
  }

  /** Ubuntu 24.04: a writable root and systemd, whoever provides the driver. */
  private static HostOs onUbuntu(HostKind kind, String driverRoot, DriverProvider provider) {
    return new HostOs(
        kind, "ubuntu", "24.04", "6.8.0-85-generic", false, true, driverRoot, "/", provider);
  }

  /** A copy of {@code facts}, to change a field or two. */
  public static NodeRegisteredBuilder from(NodeRegistered facts) {
    return new NodeRegisteredBuilder()
        .hostname(facts.hostname())
        .hostOs(facts.hostOs())
        .driverVersion(facts.driverVersion())
        .zone(facts.zone())
        .labels(facts.labels())
        .reasons(facts.reasons());
  }

  /** The OS facts, all nine of them: a fleet file's host, a probe's finding. */
  public NodeRegisteredBuilder hostOs(HostOs os) {
    this.hostKind = os.hostKind();
    this.osId = os.osId();
    this.osVersion = os.osVersion();
    this.kernel = os.kernel();
    this.readOnlyRoot = os.readOnlyRoot();
    this.systemd = os.systemd();
    this.driverRoot = os.driverRoot();
    this.deviceRoot = os.deviceRoot();
    this.driverProvider = os.driverProvider();
    return this;
  }

  public NodeRegisteredBuilder hostname(String hostname) {
    this.hostname = hostname;
    return this;
  }

  public NodeRegisteredBuilder hostKind(HostKind hostKind) {
    this.hostKind = hostKind;
    return this;
  }

  public NodeRegisteredBuilder os(String osId, String osVersion) {
    this.osId = osId;
    this.osVersion = osVersion;
    return this;
  }

  public NodeRegisteredBuilder kernel(String kernel) {
    this.kernel = kernel;
    return this;
  }

  public NodeRegisteredBuilder readOnlyRoot(boolean readOnlyRoot) {
    this.readOnlyRoot = readOnlyRoot;
    return this;
  }

  public NodeRegisteredBuilder systemd(boolean systemd) {
    this.systemd = systemd;
    return this;
  }

  public NodeRegisteredBuilder driverRoot(String driverRoot) {
    this.driverRoot = driverRoot;
    return this;
  }

  public NodeRegisteredBuilder deviceRoot(String deviceRoot) {
    this.deviceRoot = deviceRoot;
    return this;
  }

  public NodeRegisteredBuilder driverProvider(DriverProvider driverProvider) {
    this.driverProvider = driverProvider;
    return this;
  }

  public NodeRegisteredBuilder driverVersion(String driverVersion) {
    this.driverVersion = driverVersion;
    return this;
  }

  public NodeRegisteredBuilder zone(String zone) {
    this.zone = zone;
    return this;
  }

  public NodeRegisteredBuilder labels(Map<String, String> labels) {
    this.labels = labels;
    return this;
  }

  /** Why each detected fact has its value, e.g. {@code driverRoot -> "talos system extension"}. */
  public NodeRegisteredBuilder reasons(Map<String, String> reasons) {
    this.reasons = reasons;
    return this;
  }

  /** The event; the record's own checks apply (a blank hostname, kernel or root is refused). */
  public NodeRegistered build() {
    return new NodeRegistered(
        hostname,
        hostKind,
        osId,
        osVersion,
        kernel,
        readOnlyRoot,
        systemd,
        driverRoot,
        deviceRoot,
        driverProvider,
        driverVersion,
        zone,
        labels,
        reasons);
  }
}
