package io.fleetwave.controlplane.rollout.driver;

/**
 * A driver executor that an assembly adds beside the built-in ones, chosen by its name in {@value
 * DriverExecutorProducer#EXECUTOR}: the demo adds {@code simulator}, which drives its in-process
 * simulated fleet and so cannot exist in the production control plane.
 */
public interface DriverExecutorProvider {
  String name();

  /** Called once, at start, when {@link #name()} is the configured executor. */
  DriverChangeExecutor create();
}
