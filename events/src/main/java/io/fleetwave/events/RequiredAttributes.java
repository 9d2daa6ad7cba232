package io.fleetwave.events;

import java.net.URI;
import java.time.Instant;
import java.util.Objects;

/**
 * The CloudEvents attributes every envelope, event or command, must carry, checked in one place.
 */
final class RequiredAttributes {
  private RequiredAttributes() {}

  static void check(String id, URI source, String type, String subject, Instant time, Object data) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(data, "data");
    if (subject.isBlank()) {
      throw new IllegalArgumentException("subject (node name) must not be blank");
    }
  }
}
