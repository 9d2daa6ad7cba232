package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutEvent;

/**
 * One record of fleet.rollout-events as read: where it is, how large it is, and its event or why it
 * does not decode. A record that does not decode still belongs to the rollout its key names.
 *
 * @param bytes the size of the record's value
 * @param envelope the decoded event, null when it does not decode
 * @param rejection why it does not decode, null when it does
 */
public record LoggedRecord(
    String topic,
    int partition,
    long offset,
    int bytes,
    Envelope<RolloutEvent> envelope,
    String rejection) {
  public LoggedRecord {
    if ((envelope == null) == (rejection == null)) {
      throw new IllegalArgumentException("a logged record has an event or a rejection, not both");
    }
  }

  public static LoggedRecord decoded(
      String topic, int partition, long offset, int bytes, Envelope<RolloutEvent> envelope) {
    return new LoggedRecord(topic, partition, offset, bytes, envelope, null);
  }

  public static LoggedRecord rejected(
      String topic, int partition, long offset, int bytes, String rejection) {
    return new LoggedRecord(topic, partition, offset, bytes, null, rejection);
  }

  @Override
  public String toString() {
    return topic + "-" + partition + "@" + offset;
  }
}
