package io.fleetwave.controlplane.kafka;

import io.fleetwave.events.BrokerRefusal;
import java.util.Optional;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;

/**
 * The broker refusing the control plane: its credentials (authentication: SASL, TLS) or its rights
 * (ACLs). Kafka reports both with exceptions of its own that no retry with the same settings
 * overcomes; the message keeps Kafka's words (they name the mechanism or the topics, never a
 * secret) and says which settings to look at.
 */
public final class KafkaRefusal {
  private KafkaRefusal() {}

  /**
   * Why the broker refused, when {@code failure} or one of its causes is Kafka's authentication or
   * authorization exception.
   */
  public static Optional<String> of(Throwable failure) {
    return BrokerRefusal.explain(
            failure,
            AuthenticationException.class,
            AuthorizationException.class,
            "the control plane",
            "check KAFKA_SECURITY_PROTOCOL, KAFKA_SASL_MECHANISM and KAFKA_SASL_JAAS_CONFIG"
                + " (kafka.* settings)",
            "its principal needs the ACLs of the KafkaUser fleetwave-control-plane"
                + " (deploy/kafka/users.yaml)")
        .map(why -> "the broker " + why);
  }
}
