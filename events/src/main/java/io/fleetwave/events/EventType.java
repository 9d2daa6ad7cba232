package io.fleetwave.events;

/**
 * One versioned event type: the CloudEvents {@code type} is {@code name + ".v" + version}.
 *
 * @param name stable name without version, e.g. {@code io.fleetwave.node.registered}
 * @param version the newest version this build reads and writes
 * @param payload the record the data decodes to
 */
public record EventType(String name, int version, Class<? extends FleetEvent> payload) {
  public String wireType() {
    return name + ".v" + version;
  }
}
