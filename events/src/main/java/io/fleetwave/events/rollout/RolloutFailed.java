package io.fleetwave.events.rollout;

import static io.fleetwave.events.node.Require.notBlank;
import static io.fleetwave.events.node.Require.notNegative;

/**
 * The rollout stops for good because a record of its own log could not be folded: it does not
 * decode, it contradicts the rollout's folded state, or it is larger than any record the engine
 * writes. The record is named by its place in the log, so an operator can look at it. Terminal:
 * nothing after it is folded, no node is started any more; every other rollout goes on.
 *
 * @param topic the topic of the record that could not be folded
 * @param partition its partition
 * @param offset its offset
 * @param reason why it could not be folded
 */
public record RolloutFailed(String topic, int partition, long offset, String reason)
    implements RolloutEvent {
  public RolloutFailed {
    notBlank(topic, "topic");
    notNegative(partition, "partition");
    notNegative(offset, "offset");
    notBlank(reason, "reason");
  }

  /** The status reason the rollout shows: the record's place and why it did not fold. */
  public String describe() {
    return "record " + topic + "-" + partition + "@" + offset + " could not be folded: " + reason;
  }
}
