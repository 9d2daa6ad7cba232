package io.fleetwave.controlplane.projection;

import io.fleetwave.events.EventType;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.payload.FleetEvent;

/**
 * The event types of the node history ({@code node_events}) that carry a node's state whole: its
 * newest registration and newest inventory are what it is (the other events are progress, folded,
 * and liveness).
 */
public final class NodeHistory {
  public static final String REGISTERED = wireType(NodeRegistered.class);
  public static final String INVENTORY = wireType(GpuInventoryReported.class);

  private NodeHistory() {}

  private static String wireType(Class<? extends FleetEvent> payload) {
    return EventTypes.all().stream()
        .filter(type -> type.payload() == payload)
        .map(EventType::wireType)
        .findFirst()
        .orElseThrow();
  }
}
