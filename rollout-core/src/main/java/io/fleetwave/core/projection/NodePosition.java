package io.fleetwave.core.projection;

import io.fleetwave.events.Envelope;

/**
 * Where a node's projection stands: the (epoch, seq) of the newest event applied to it. {@link
 * #NONE} sorts before every real event (epoch and seq are never negative). The one ordering rule of
 * a node's events in the control plane: the projection's fold and the rollout engine's live view of
 * a node both apply an event only when it comes strictly after what they hold.
 */
public record NodePosition(long epoch, long seq) {
  public static final NodePosition NONE = new NodePosition(-1, -1);

  public static NodePosition of(Envelope<?> envelope) {
    return new NodePosition(envelope.epoch(), envelope.seq());
  }

  /** True when the event comes strictly after this position, i.e. it must be applied. */
  public boolean precedes(Envelope<?> event) {
    return precedes(of(event));
  }

  /** True when {@code later} comes strictly after this position: a newer epoch, or a newer seq. */
  public boolean precedes(NodePosition later) {
    return later.epoch > epoch || (later.epoch == epoch && later.seq > seq);
  }

  /**
   * How many events the node numbered between this position and {@code next} (which comes after it)
   * that were never applied: the seqs skipped within the epoch, or those before {@code next} in a
   * new epoch (each epoch numbers from 0). Events at the end of an earlier epoch cannot be seen.
   */
  public long missedBefore(Envelope<?> next) {
    return next.epoch() == epoch ? next.seq() - seq - 1 : next.seq();
  }
}
