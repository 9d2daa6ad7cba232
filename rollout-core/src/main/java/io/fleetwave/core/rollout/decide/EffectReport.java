package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import java.util.UUID;

/**
 * What an effect reported about one start of a node (its generation), for the decider to record or
 * drop: effects never append. A report for an older start of the node, or one already recorded, is
 * dropped by the decider.
 */
public sealed interface EffectReport {
  UUID rollout();

  String node();

  long generation();

  /** The spec or the driver request could not be handed over. */
  record HandOverFailed(UUID rollout, String node, long generation, String reason)
      implements EffectReport {}

  /** The drain could not take the node out of service (within its bound). */
  record NotTakenOutOfService(UUID rollout, String node, long generation, String reason)
      implements EffectReport {}

  /** The drain took the node out of service, as it reports it. */
  record TakenOutOfService(UUID rollout, String node, long generation, NodeTakenOutOfService report)
      implements EffectReport {}

  /** The drain put the node back in service, as it reports it. */
  record ReturnedToService(UUID rollout, String node, long generation, NodeReturnedToService report)
      implements EffectReport {}

  /** The drain kept the failed node out of service (its pauses undone), as it reports it. */
  record KeptOutOfService(UUID rollout, String node, long generation, NodeKeptOutOfService report)
      implements EffectReport {}

  /** Putting the node back (or keeping it out) did not answer: it stays out, with the reason. */
  record ReleaseFailed(UUID rollout, String node, long generation, String reason)
      implements EffectReport {}
}
