package io.fleetwave.controlplane.rollout.driver;

import io.smallrye.mutiny.Uni;

/** Carries out driver changes outside the agent. */
public interface DriverChangeExecutor {
  String name();

  default boolean configured() {
    return true;
  }

  Uni<Void> request(DriverChangeRequest request);
}
