package io.fleetwave.controlplane.rollout.driver;

import io.smallrye.mutiny.Uni;

/**
 * The seam through which a rollout changes a node's driver: the node agent never touches drivers
 * (on Talos and COS the driver only comes with the OS image), so something outside it does: a
 * webhook, a Kubernetes Job, or in demo mode the simulated node. Chosen by {@code
 * fleetwave.rollout.driver-executor} (see {@link DriverExecutorProducer}).
 *
 * <p>Contract for every implementation: {@link #request} completes when the request has been handed
 * over, not when the node runs the driver (the engine watches the node's reported driver version
 * itself); it is bounded in time; a failure is a {@link DriverChangeException} naming the node and
 * the executor; a request repeated with the same {@link DriverChangeRequest#id()} is harmless.
 */
public interface DriverChangeExecutor {
  /**
   * The configured name: {@code none}, {@code webhook}, {@code kubernetes-job}, or an added one
   * ({@link DriverExecutorProvider}).
   */
  String name();

  /** Hands the change over; fails with a {@link DriverChangeException}. */
  Uni<Void> request(DriverChangeRequest request);

  /**
   * False when no executor is configured: driver rollouts are then refused at creation (422) rather
   * than failing node by node.
   */
  default boolean configured() {
    return true;
  }
}
