package io.fleetwave.events.codec;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.function.Consumer;

/** An encoded record with its JSON changed by a test, to see what the decoder says of it. */
final class RecordEdits {
  private RecordEdits() {}

  static byte[] edited(byte[] record, Consumer<ObjectNode> change) {
    try {
      ObjectNode json = (ObjectNode) EventCodec.mapper().readTree(record);
      change.accept(json);
      return EventCodec.mapper().writeValueAsBytes(json);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
