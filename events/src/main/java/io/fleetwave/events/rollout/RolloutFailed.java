package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;

/**
 * The rollout stops for good because a record of its own log could not be folded: it does not
 * decode, it contradicts the rollout's folded state, or it is larger than any record the engine
 * writes. The record is named by its place in the log, so an operator can look at it. Terminal:
 * nothing after it is folded, no node is started any more; every other rollout goes on.
 *
 * <p>An event the engine decided but Kafka refused for good (too large) fails its rollout the same
 * way; it never reached the log, so it has no place: partition and offset are {@link #NOT_LOGGED}.
 *
 * @param topic the topic of the record that could not be folded
 * @param partition its partition, or {@link #NOT_LOGGED}
 * @param offset its offset, or {@link #NOT_LOGGED}
 * @param reason why it could not be folded
 */
public record RolloutFailed(String topic, int partition, long offset, String reason)
    implements RolloutEvent {
  /** The partition and offset of an event that Kafka refused: it is not in the log. */
  public static final int NOT_LOGGED = -1;

  public RolloutFailed {
    notBlank(topic, "topic");
    if (partition < NOT_LOGGED || offset < NOT_LOGGED) {
      throw new IllegalArgumentException(
          "fields 'partition' and 'offset' must not be negative (-1: not logged)");
    }
    notBlank(reason, "reason");
  }

  /** The status reason the rollout shows: the record's place and why it did not fold. */
  public String describe() {
    return offset == NOT_LOGGED
        ? "an event could not be logged on " + topic + ": " + reason
        : "record " + topic + "-" + partition + "@" + offset + " could not be folded: " + reason;
  }
}
