package io.fleetwave.controlplane.identity;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;

/**
 * A node's key, enrolled: what the agent is told and the node_keys row records.
 *
 * @param nodeKeys every key of the node that is not revoked, this one included: an agent that keeps
 *     nothing on its host (read-only root) checks with them which records of the topic its own
 *     earlier runs signed, before it takes its last epoch from them
 * @param kafka the node's own Kafka login, for its Kafka clients; null (left out of the answer)
 *     when the control plane makes no Kafka user per node and the agent keeps its shared one
 * @param eventMacKey the control plane's agreement key (base64 X25519), with which the node's
 *     events carry a MAC the control plane checks instead of their signature ({@code
 *     NodeEventSigner.withMacFor}); null (left out) when no command key is configured
 */
public record Enrolled(
    String node,
    String keyId,
    String credential,
    Instant enrolledAt,
    List<NodeKey> nodeKeys,
    @JsonInclude(JsonInclude.Include.NON_NULL) KafkaCredential kafka,
    @JsonInclude(JsonInclude.Include.NON_NULL) String eventMacKey) {

  /** One enrolled public key of the node (X.509 PEM). */
  public record NodeKey(String keyId, String publicKey) {}

  public Enrolled {
    nodeKeys = List.copyOf(nodeKeys);
  }
}
