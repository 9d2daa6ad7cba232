package io.fleetwave.controlplane.rollout.drain;

import io.fleetwave.core.rollout.disruption.NodeOutage;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.smallrye.mutiny.Uni;
import java.time.Duration;

/**
 * Takes a node out of service before the rollout changes it and puts it back once it succeeded
 * (Kubernetes cordon and drain, a load balancer, a scheduler's own API). A node that fails stays
 * out of service for somebody to look at, but whatever was paused for the change is undone. Every
 * call is bounded and idempotent: an engine that takes over after a crash calls again for the nodes
 * whose outcome is not in the log.
 *
 * <p>The engine calls, per node: {@link #takeOutOfService} after NodeStarted and appends the event
 * it answers (or fails the node with the {@link DrainException}'s reason) before it sends the spec;
 * {@link #rebooting} once an OS upgrade was handed over; then, after NodeSucceeded, {@link
 * #returnToService}, or after NodeFailed {@link #keepOutOfService}, appending what they answer.
 */
public interface NodeDrain {
  String name();

  /**
   * Whether nodes are taken out of service at all. When false the engine calls nothing here,
   * records no such events and never waits for a drain.
   */
  boolean active();

  /** The most {@link #takeOutOfService} may take, every bound inside it included. */
  Duration bound();

  /**
   * Completes once the node runs no work the change could break.
   *
   * @throws DrainException (as the Uni's failure) with the reason the node fails with
   */
  Uni<NodeTakenOutOfService> takeOutOfService(NodeOutage outage);

  /** The change is about to reboot the node (an OS upgrade was handed over). */
  Uni<Void> rebooting(NodeOutage outage);

  /** After success: undo the pauses, record success, uncordon if this drain cordoned it. */
  Uni<NodeReturnedToService> returnToService(NodeOutage outage);

  /** After a failure: undo the pauses and record the failure; the node stays cordoned. */
  Uni<NodeKeptOutOfService> keepOutOfService(NodeOutage outage, String reason);
}
