package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notNegative;
import static io.fleetwave.events.payload.Require.notNull;

/**
 * One piece of a rollout's creation logged in chunks ({@link RolloutCreatedInChunks}): folded in
 * index order, its text appended to the pieces before it.
 *
 * @param index 0 for the first chunk
 * @param text a piece of the JSON of the RolloutCreated the chunks stand for
 */
public record RolloutPlanChunk(int index, String text) implements RolloutEvent {
  public RolloutPlanChunk {
    notNegative(index, "index");
    notNull(text, "text");
  }
}
