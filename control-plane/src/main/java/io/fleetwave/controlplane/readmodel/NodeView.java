package io.fleetwave.controlplane.readmodel;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A node as the API shows it. Facts are null until the node's first NodeRegistered; {@code
 * desiredGeneration} is null until the node's first spec; {@code notConvergedReason} is null when
 * {@code converged}.
 */
public record NodeView(
    String name,
    String hostKind,
    String osId,
    String osVersion,
    String kernel,
    Boolean readOnlyRoot,
    Boolean systemd,
    String driverRoot,
    String deviceRoot,
    String driverProvider,
    String driverVersion,
    String zone,
    Map<String, String> labels,
    Map<String, String> reasons,
    Instant lastSeen,
    Long desiredGeneration,
    long appliedGeneration,
    boolean converged,
    String notConvergedReason,
    List<GpuView> gpus) {

  public record GpuView(
      int index,
      String uuid,
      String pciBusId,
      String pciDeviceId,
      String product,
      long memoryMiB,
      boolean migCapable,
      String migMode,
      String migModePending,
      List<InstanceView> instances,
      int vfsTotal,
      int vfsEnabled,
      String health) {}

  public record InstanceView(String profile, Placement placement) {}

  public record Placement(int start, int size) {}
}
