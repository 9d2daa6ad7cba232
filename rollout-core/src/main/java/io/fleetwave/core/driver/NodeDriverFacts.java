package io.fleetwave.core.driver;

import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeRegistered;

/**
 * The host facts that decide how a driver reaches a node (from {@link NodeRegistered}).
 *
 * @param osId os-release ID, e.g. {@code ubuntu}, {@code rhel}, {@code rocky}, {@code talos}
 * @param osVersion os-release VERSION_ID, e.g. {@code 22.04}, {@code 9.4}
 * @param kernel {@code uname -r}
 * @param currentDriverVersion the loaded driver's version, or null when none is loaded
 */
public record NodeDriverFacts(
    HostKind hostKind,
    String osId,
    String osVersion,
    String kernel,
    DriverProvider driverProvider,
    String currentDriverVersion) {

  public static NodeDriverFacts of(NodeRegistered node) {
    return new NodeDriverFacts(
        node.hostKind(),
        node.osId(),
        node.osVersion(),
        node.kernel(),
        node.driverProvider(),
        node.driverVersion());
  }
}
