package io.fleetwave.agent.host;

import io.fleetwave.events.node.HostOs;
import io.fleetwave.events.node.NodeRegistered;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the host probe found, each value with the reason it was chosen. Host paths (the OS facts'
 * {@code driverRoot} and {@code deviceRoot}, {@code stateDirectory}) are as the host sees them;
 * {@link #resolve} turns one into a path the agent can open under its host root.
 *
 * @param nvmlLibrary libnvidia-ml.so.1 under the driver root, as the agent opens it
 * @param nvidiaSmi nvidia-smi under the driver root, as the agent runs it
 * @param reasons for each fact name (osId, kernel, hostKind, driverRoot, ...) why it has its value
 */
public record HostFacts(
    Path hostRoot,
    String hostname,
    HostOs os,
    Optional<String> stateDirectory,
    Optional<Path> nvmlLibrary,
    Optional<Path> nvidiaSmi,
    Map<String, String> reasons) {

  public HostFacts {
    reasons = Map.copyOf(reasons);
  }

  /** A host path (e.g. {@code /run/nvidia/driver/bin}) as the agent opens it. */
  public Path resolve(String hostPath) {
    return HostPaths.resolve(hostRoot, hostPath);
  }

  /**
   * The state directory as the agent opens it, where the agent may keep files: none on a read-only
   * root, whatever the probe found there.
   */
  public Optional<Path> writableStateDirectory() {
    return os.readOnlyRoot() ? Optional.empty() : stateDirectory.map(this::resolve);
  }

  /**
   * The NodeRegistered event for these facts, with every reason and why the driver version is what
   * it is: null, with the reason, while no driver is usable (the GPUs are not ready).
   */
  public NodeRegistered toNodeRegistered(
      String driverVersion, String driverVersionReason, String zone, Map<String, String> labels) {
    Map<String, String> withDriver = new LinkedHashMap<>(reasons);
    withDriver.put("driverVersion", driverVersionReason);
    return registered(driverVersion, zone, labels, withDriver);
  }

  /** The NodeRegistered event for these facts, with every reason. */
  public NodeRegistered toNodeRegistered(
      String driverVersion, String zone, Map<String, String> labels) {
    return registered(driverVersion, zone, labels, reasons);
  }

  private NodeRegistered registered(
      String driverVersion, String zone, Map<String, String> labels, Map<String, String> why) {
    return NodeRegistered.of(hostname, os, driverVersion, zone, labels, why);
  }
}
