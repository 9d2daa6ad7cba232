package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notBlank;

/**
 * The agent found a boot it had not seen: everything rule 7 of hardware-model.md lists is lost and
 * the spec is re-applied.
 *
 * @param bootId the host's boot id now
 * @param previousBootId the boot id the agent last saw, or null if it never saw one
 */
public record NodeBooted(String bootId, String previousBootId) implements NodeEvent {
  public NodeBooted {
    notBlank(bootId, "bootId");
    if (previousBootId != null) {
      notBlank(previousBootId, "previousBootId");
    }
  }
}
