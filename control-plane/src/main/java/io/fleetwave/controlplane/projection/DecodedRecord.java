package io.fleetwave.controlplane.projection;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.NodeEvent;

/** One record of fleet.node-events after decoding: a node event, or the reason it was refused. */
public sealed interface DecodedRecord {
  record Accepted(Envelope<NodeEvent> envelope) implements DecodedRecord {}

  record Rejected(String reason) implements DecodedRecord {}
}
