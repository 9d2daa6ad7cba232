package io.fleetwave.agent.identity;

import io.fleetwave.events.security.EnrolledKey;
import io.fleetwave.events.security.NodeEventSigner;
import java.util.Map;
import java.util.Optional;

/**
 * The node's enrolled key and the keys it may trust as its own: every key of the node that the
 * control plane reported not revoked when this one enrolled (its own earlier runs' on a read-only
 * host), this one always included. A record of the topic keyed with the node's name is the node's
 * own only if one of them signed it.
 *
 * @param ownKeys by key id
 * @param kafkaLogin the node's own Kafka login, where the control plane makes one per node
 */
public record NodeIdentity(
    NodeEventSigner key, Map<String, EnrolledKey> ownKeys, Optional<KafkaLogin> kafkaLogin) {
  public NodeIdentity {
    ownKeys = Map.copyOf(ownKeys);
  }
}
