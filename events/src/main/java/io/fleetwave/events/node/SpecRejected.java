package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;

/**
 * A spec or command the agent refused; nothing on the node changed because of it.
 *
 * @param generation the generation it claimed (0 when it could not be read)
 * @param commandId the CloudEvents id of the refused record, or null when it could not be read
 * @param code a stable word for dashboards: unsigned, forged, replayed, expired, wrong-node,
 *     malformed, unplannable
 * @param reason the specific reason, for people
 */
public record SpecRejected(long generation, String commandId, String code, String reason)
    implements NodeEvent {
  public SpecRejected {
    notNegative(generation, "generation");
    if (commandId != null) {
      notBlank(commandId, "commandId");
    }
    notBlank(code, "code");
    notBlank(reason, "reason");
  }
}
