package io.fleetwave.controlplane.rollout.driver;

import io.smallrye.mutiny.Uni;

/** No driver executor configured ({@code none}): every request fails and says how to set one. */
public final class UnconfiguredDriverExecutor implements DriverChangeExecutor {
  public static final String NAME = "none";

  static final String HOW_TO =
      "no driver executor is configured: set fleetwave.rollout.driver-executor to webhook (with"
          + " fleetwave.rollout.driver-webhook.url) or kubernetes-job (with"
          + " fleetwave.rollout.driver-job.template)";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean configured() {
    return false;
  }

  @Override
  public Uni<Void> request(DriverChangeRequest request) {
    return Uni.createFrom().failure(new DriverChangeException(NAME, request, HOW_TO));
  }
}
