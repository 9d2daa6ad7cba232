package io.fleetwave.core.projection;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.NodeEvent;
import java.util.Objects;
import java.util.Optional;

/** One record of fleet.node-events after decoding: a node event, or the reason it was refused. */
public sealed interface DecodedRecord {
  /**
   * A node event, with the text of its {@code data} object as received where the codec kept it (a
   * current-version record of the common shape): the history stores that text as it is rather than
   * writing the decoded payload out again.
   */
  record Accepted(Envelope<NodeEvent> envelope, Optional<String> receivedData)
      implements DecodedRecord {
    public Accepted {
      Objects.requireNonNull(envelope, "envelope");
      Objects.requireNonNull(receivedData, "receivedData");
    }

    /** An event with no received text: its history payload is the decoded one, written again. */
    public Accepted(Envelope<NodeEvent> envelope) {
      this(envelope, Optional.empty());
    }
  }

  record Rejected(String reason) implements DecodedRecord {}
}
