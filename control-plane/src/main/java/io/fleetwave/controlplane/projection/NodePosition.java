package io.fleetwave.controlplane.projection;

import io.fleetwave.events.Envelope;

/**
 * Where a node's projection stands: the (epoch, seq) of the newest event applied to it. {@link
 * #NONE} sorts before every real event (epoch and seq are never negative).
 */
public record NodePosition(long epoch, long seq) {
  public static final NodePosition NONE = new NodePosition(-1, -1);

  public static NodePosition of(Envelope<?> envelope) {
    return new NodePosition(envelope.epoch(), envelope.seq());
  }

  /** True when the event comes strictly after this position, i.e. it must be applied. */
  public boolean precedes(Envelope<?> event) {
    return event.isAfter(epoch, seq);
  }
}
