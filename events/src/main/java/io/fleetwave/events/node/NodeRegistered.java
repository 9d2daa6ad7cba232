package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.util.Map;

/**
 * The host facts of a node, published at agent start and whenever they change.
 *
 * @param reasons for each detected fact (e.g. {@code driverRoot}), why that value was chosen
 */
public record NodeRegistered(
    String hostname,
    HostKind hostKind,
    String osId,
    String osVersion,
    String kernel,
    boolean readOnlyRoot,
    boolean systemd,
    String driverRoot,
    String deviceRoot,
    DriverProvider driverProvider,
    String driverVersion,
    String zone,
    Map<String, String> labels,
    Map<String, String> reasons)
    implements NodeEvent {

  public NodeRegistered {
    notBlank(hostname, "hostname");
    notNull(hostKind, "hostKind");
    notBlank(osId, "osId");
    notNull(osVersion, "osVersion");
    notBlank(kernel, "kernel");
    notBlank(driverRoot, "driverRoot");
    notBlank(deviceRoot, "deviceRoot");
    notNull(driverProvider, "driverProvider");
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    reasons = reasons == null ? Map.of() : Map.copyOf(reasons);
  }

  /**
   * The facts of host {@code hostname} with these OS facts; the checks of the record apply.
   *
   * @param driverVersion null while no driver is usable (with the reason in {@code reasons})
   */
  public static NodeRegistered of(
      String hostname,
      HostOs os,
      String driverVersion,
      String zone,
      Map<String, String> labels,
      Map<String, String> reasons) {
    notNull(os, "os");
    return new NodeRegistered(
        hostname,
        os.hostKind(),
        os.osId(),
        os.osVersion(),
        os.kernel(),
        os.readOnlyRoot(),
        os.systemd(),
        os.driverRoot(),
        os.deviceRoot(),
        os.driverProvider(),
        driverVersion,
        zone,
        labels,
        reasons);
  }

  /** The OS facts in one piece: what {@link #of} took, to copy or compare them together. */
  public HostOs hostOs() {
    return new HostOs(
        hostKind,
        osId,
        osVersion,
        kernel,
        readOnlyRoot,
        systemd,
        driverRoot,
        deviceRoot,
        driverProvider);
  }
}
