package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;

/**
 * The agent could not keep some of its own events while the broker was unreachable (its spool or
 * memory queue reached its bound) and says so instead of leaving a silent hole: the events numbered
 * {@code fromSeq..toSeq} of this run (this envelope's epoch) will never arrive. The agent publishes
 * its registration and inventory again right after, so what the gap hid is restated.
 *
 * @param fromSeq first dropped sequence number of this run
 * @param toSeq last dropped sequence number of this run (inclusive)
 * @param count how many were dropped: {@code toSeq - fromSeq + 1}
 * @param reason which bound was hit, with its value
 */
public record EventsDropped(long fromSeq, long toSeq, long count, String reason)
    implements NodeEvent {
  public EventsDropped {
    notNegative(fromSeq, "fromSeq");
    notBlank(reason, "reason");
    if (toSeq < fromSeq) {
      throw new IllegalArgumentException(
          "field 'toSeq' (" + toSeq + ") must not be below 'fromSeq' (" + fromSeq + ")");
    }
    if (count != toSeq - fromSeq + 1) {
      throw new IllegalArgumentException(
          "field 'count' (" + count + ") must be toSeq - fromSeq + 1 = " + (toSeq - fromSeq + 1));
    }
  }
}
