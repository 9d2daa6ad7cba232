package io.fleetwave.controlplane.rollout.store;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/** One event of a rollout's stream, as the history and the SSE stream show it. */
public record RolloutEventView(long seq, String type, Instant time, JsonNode data) {}
