package io.fleetwave.events.command;

import static io.fleetwave.events.payload.Require.notNull;

import io.fleetwave.events.spec.NodeSpec;
import java.time.Instant;

/**
 * The desired spec of one node, as kept in the compacted {@code fleet.node-desired} topic.
 *
 * <p>{@code expiresAt} is normally null: the latest spec must stay applicable after a reboot or a
 * lost disk, however old it is; replays are stopped by the generation instead. A control plane may
 * still set it for a spec that must not apply late.
 */
public record ApplyNodeSpec(NodeSpec spec, Instant issuedAt, Instant expiresAt)
    implements NodeCommand {
  public ApplyNodeSpec {
    notNull(spec, "spec");
    Validity.check(issuedAt, expiresAt, false);
  }

  @Override
  public long generation() {
    return spec.generation();
  }
}
