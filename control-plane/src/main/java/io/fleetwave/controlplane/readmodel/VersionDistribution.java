package io.fleetwave.controlplane.readmodel;

/**
 * How many nodes of one zone and pool run one combination of driver, OS and MIG layout, and how
 * many of them have not reached their desired state (not converged, or a desired driver they do not
 * run yet): one row of {@code reports.version_distribution}.
 */
public record VersionDistribution(
    String zone,
    String pool,
    String driverVersion,
    String os,
    String migLayout,
    long nodes,
    long drifted) {}
