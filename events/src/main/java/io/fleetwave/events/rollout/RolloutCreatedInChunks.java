package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;

import java.util.regex.Pattern;

/**
 * A rollout was created, its waves, request and plan too large for one record: they follow as
 * {@code chunks} {@link RolloutPlanChunk} records (index 0 first), whose texts joined are the JSON
 * of the {@link RolloutCreated} they stand for. The rollout exists, but nothing of it can start
 * until the last chunk is folded; the joined text must hash to {@code sha256}.
 *
 * @param chunks how many chunks follow (at least 1)
 * @param sha256 the SHA-256 of the joined text (UTF-8), lower-case hex
 */
public record RolloutCreatedInChunks(String name, String actor, int chunks, String sha256)
    implements RolloutEvent {
  private static final Pattern HEX_256 = Pattern.compile("[0-9a-f]{64}");

  public RolloutCreatedInChunks {
    notBlank(name, "name");
    notBlank(actor, "actor");
    if (chunks < 1) {
      throw new IllegalArgumentException("field 'chunks' must be at least 1, was " + chunks);
    }
    if (sha256 == null || !HEX_256.matcher(sha256).matches()) {
      throw new IllegalArgumentException("field 'sha256' must be 64 lower-case hex digits");
    }
  }
}
