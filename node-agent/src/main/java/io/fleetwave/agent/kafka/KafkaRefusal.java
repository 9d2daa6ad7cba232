package io.fleetwave.agent.kafka;

import io.fleetwave.events.BrokerRefusal;
import io.fleetwave.events.Topics;
import java.util.Optional;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;

/**
 * The broker refusing the agent: its credentials (authentication: SASL, TLS) or its rights (ACLs).
 * Kafka reports both with exceptions of its own that no retry with the same settings can overcome,
 * so the agent stops at once with Kafka's reason instead of waiting out a bound or retrying
 * forever. Kafka's messages name the mechanism or the topics, never a secret.
 */
public final class KafkaRefusal {
  /** What the agent's principal must be allowed (deploy/kafka/users.yaml grants exactly this). */
  static final String NEEDED =
      "Write and Read on "
          + Topics.NODE_EVENTS
          + ", Read on "
          + Topics.NODE_DESIRED
          + " and "
          + Topics.NODE_COMMANDS;

  private KafkaRefusal() {}

  /**
   * Why the broker refused, when {@code failure} (or one of its causes) is Kafka's authentication
   * or authorization exception: e.g. {@code refused the agent's credentials
   * (SaslAuthenticationException: Authentication failed ...)}.
   */
  public static Optional<String> of(Throwable failure) {
    return BrokerRefusal.explain(
        failure,
        AuthenticationException.class,
        AuthorizationException.class,
        "the agent",
        "check security.protocol, sasl.mechanism and sasl.jaas.config in the --kafka-config file",
        "the agent's principal needs " + NEEDED);
  }
}
