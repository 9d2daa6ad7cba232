package io.fleetwave.events.node;

/**
 * The operating-system facts of a host, as {@link NodeRegistered} carries them: which kind of host,
 * its OS and kernel, whether its root is read-only and systemd runs, where the driver and the
 * devices live and who provides the driver. The agent's probe finds them and the simulator's fleet
 * files name them; both hand them to {@link NodeRegistered#of} in one piece.
 */
public record HostOs(
    HostKind hostKind,
    String osId,
    String osVersion,
    String kernel,
    boolean readOnlyRoot,
    boolean systemd,
    String driverRoot,
    String deviceRoot,
    DriverProvider driverProvider) {}
