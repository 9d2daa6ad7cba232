package io.fleetwave.controlplane.identity;

import io.fleetwave.controlplane.config.NodeIdentityConfig;
import java.time.Duration;

/**
 * What the nodes' KafkaUsers are made with ({@code fleetwave.node-identity.kafka-users.*}), as a
 * plain value: the Kafka cluster's namespace and name, the wait for the user's Secret, and each
 * node's quotas.
 */
public record KafkaUserSettings(
    String namespace,
    String cluster,
    Duration secretTimeout,
    int producerByteRate,
    int consumerByteRate,
    int requestPercentage) {

  /**
   * The configured settings.
   *
   * @throws IllegalStateException when the feature is on and no namespace is set
   */
  public static KafkaUserSettings of(NodeIdentityConfig.KafkaUsers config) {
    String namespace = config.namespace().filter(n -> !n.isBlank()).orElse(null);
    if (config.enabled() && namespace == null) {
      throw new IllegalStateException(
          "fleetwave.node-identity.kafka-users.enabled is true but"
              + " fleetwave.node-identity.kafka-users.namespace (the Kafka cluster's namespace,"
              + " FLEETWAVE_NODE_IDENTITY_KAFKA_USERS_NAMESPACE) is not set");
    }
    return new KafkaUserSettings(
        namespace,
        config.cluster(),
        config.secretTimeout(),
        config.producerByteRate(),
        config.consumerByteRate(),
        config.requestPercentage());
  }
}
