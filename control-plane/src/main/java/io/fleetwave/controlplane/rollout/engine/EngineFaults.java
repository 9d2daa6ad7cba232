package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutEvent;
import java.io.Serial;
import java.util.List;

/**
 * Where tests stop an engine as a crash would: after Kafka acknowledged a batch of events and
 * before anything else happened (specs not sent, projection not written).
 */
@FunctionalInterface
public interface EngineFaults {
  EngineFaults NONE = appended -> {};

  /** Throws {@link EngineCrash} to stop the engine here. */
  void afterAppend(List<Envelope<RolloutEvent>> appended);

  /** Stops the engine thread on the spot, as if its process died. */
  final class EngineCrash extends Error {
    @Serial private static final long serialVersionUID = 1L;

    public EngineCrash(String message) {
      super(message);
    }
  }
}
