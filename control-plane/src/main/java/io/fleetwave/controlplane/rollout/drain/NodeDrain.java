package io.fleetwave.controlplane.rollout.drain;

import io.smallrye.mutiny.Uni;
import java.util.List;

/**
 * Takes nodes out of service before the rollout changes them and puts them back once they succeeded
 * (Kubernetes cordon and drain, a load balancer, a scheduler's own API). A node that fails stays
 * out of service for somebody to look at. Both calls must be bounded and idempotent.
 */
public interface NodeDrain {
  String name();

  /** Completes once the nodes run no work the change could break. */
  Uni<Void> takeOutOfService(List<String> nodes);

  Uni<Void> returnToService(List<String> nodes);
}
