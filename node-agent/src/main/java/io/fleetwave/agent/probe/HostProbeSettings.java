package io.fleetwave.agent.probe;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What the probe is told; everything else it detects.
 *
 * @param hostRoot where the host's root file system is seen ({@code /}, or {@code /host} in a
 *     container)
 * @param driverRoot explicit driver root as a host path; wins over detection
 * @param deviceRoot explicit device root as a host path; wins over detection
 * @param stateDirectories candidate host paths for a writable state directory, first usable wins
 * @param busTimeout bound on every D-Bus step of the systemd check
 * @param agentMountInfo the agent's own mountinfo, used when the host root has no proc/1/mountinfo
 * @param nodeName explicit node name (the Kubernetes node name, {@code --node-name} / {@code
 *     NODE_NAME}); wins over the host name the probe finds
 */
public record HostProbeSettings(
    Path hostRoot,
    Optional<String> driverRoot,
    Optional<String> deviceRoot,
    List<String> stateDirectories,
    Duration busTimeout,
    Path agentMountInfo,
    Optional<String> nodeName) {

  public static final Duration DEFAULT_BUS_TIMEOUT = Duration.ofSeconds(3);

  public HostProbeSettings {
    stateDirectories = List.copyOf(stateDirectories);
    if (busTimeout.isNegative() || busTimeout.isZero()) {
      throw new IllegalArgumentException("busTimeout must be positive: " + busTimeout);
    }
  }

  /** Detect everything under {@code hostRoot}, with the default bound and state directory. */
  public static HostProbeSettings detectAll(Path hostRoot) {
    return new HostProbeSettings(
        hostRoot,
        Optional.empty(),
        Optional.empty(),
        List.of("/var/lib/fleetwave"),
        DEFAULT_BUS_TIMEOUT,
        Path.of("/proc/self/mountinfo"),
        Optional.empty());
  }

  public HostProbeSettings withDriverRoot(String path) {
    return new HostProbeSettings(
        hostRoot,
        Optional.of(path),
        deviceRoot,
        stateDirectories,
        busTimeout,
        agentMountInfo,
        nodeName);
  }

  public HostProbeSettings withDeviceRoot(String path) {
    return new HostProbeSettings(
        hostRoot,
        driverRoot,
        Optional.of(path),
        stateDirectories,
        busTimeout,
        agentMountInfo,
        nodeName);
  }

  public HostProbeSettings withBusTimeout(Duration timeout) {
    return new HostProbeSettings(
        hostRoot, driverRoot, deviceRoot, stateDirectories, timeout, agentMountInfo, nodeName);
  }

  public HostProbeSettings withNodeName(String name) {
    return new HostProbeSettings(
        hostRoot,
        driverRoot,
        deviceRoot,
        stateDirectories,
        busTimeout,
        agentMountInfo,
        Optional.of(name));
  }
}
