package io.fleetwave.events;

import io.fleetwave.events.payload.FleetEvent;

/**
 * One versioned event type: the CloudEvents {@code type} is {@code name + ".v" + version}.
 *
 * @param name stable name without version, e.g. {@code io.fleetwave.node.registered}
 * @param version the newest version this build reads and writes
 * @param payload the record the data decodes to
 * @param oldestReadable the oldest version this build still reads: every version from it up to
 *     {@code version} has an upcaster in {@link io.fleetwave.events.codec.Upcasters}
 */
public record EventType(
    String name, int version, Class<? extends FleetEvent> payload, int oldestReadable) {
  public EventType {
    if (oldestReadable < 1 || oldestReadable > version) {
      throw new IllegalArgumentException(
          name + ": oldest readable version " + oldestReadable + " is not within 1.." + version);
    }
  }

  /** A type that has only ever had its current version. */
  public EventType(String name, int version, Class<? extends FleetEvent> payload) {
    this(name, version, payload, version);
  }

  public String wireType() {
    return name + ".v" + version;
  }

  /** The wire type of an older version of this type. */
  public String wireType(int olderVersion) {
    return name + ".v" + olderVersion;
  }
}
