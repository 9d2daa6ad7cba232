package io.fleetwave.controlplane.readmodel;

import java.time.Instant;
import java.util.Map;

/** One entry of a node's event history. */
public record NodeEventView(
    String id, String type, long epoch, long seq, Instant time, Map<String, Object> payload) {}
