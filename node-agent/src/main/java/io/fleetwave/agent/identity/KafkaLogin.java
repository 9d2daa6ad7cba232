package io.fleetwave.agent.identity;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.Set;

/**
 * The node's own Kafka login, which the control plane hands out at enrolment when it makes a Kafka
 * user per node ({@code fleetwave.node-identity.kafka-users.*}): the agent's clients then speak for
 * this node alone, under its own ACLs and quotas, instead of the fleet's shared agent user.
 *
 * @param mechanism the SASL mechanism, a SCRAM one (Strimzi's User Operator makes SCRAM-SHA-512)
 */
public record KafkaLogin(String username, String password, String mechanism) {
  private static final Set<String> SCRAM = Set.of("SCRAM-SHA-512", "SCRAM-SHA-256");

  public KafkaLogin {
    if (username == null || username.isBlank() || password == null || password.isEmpty()) {
      throw new IllegalArgumentException("a Kafka login needs a user name and a password");
    }
    if (!SCRAM.contains(mechanism)) {
      throw new IllegalArgumentException(
          "the Kafka login for "
              + username
              + " names SASL mechanism "
              + mechanism
              + "; the agent logs in with SCRAM-SHA-512 or SCRAM-SHA-256 only");
    }
  }

  /**
   * The login in an enrolment answer ({@code kafka}: username, password, mechanism), or empty when
   * the answer has none (the control plane makes no user per node; the agent keeps its settings).
   *
   * @throws IllegalArgumentException when the answer has a login that is incomplete or unusable
   */
  static Optional<KafkaLogin> in(JsonNode answer) {
    JsonNode kafka = answer.path("kafka");
    if (kafka.isMissingNode() || kafka.isNull()) {
      return Optional.empty();
    }
    return Optional.of(
        new KafkaLogin(
            kafka.path("username").asText(null),
            kafka.path("password").asText(null),
            kafka.path("mechanism").asText(null)));
  }

  /** Kafka's {@code sasl.jaas.config} for this login (a value quoted as JAAS reads it). */
  public String jaasConfig() {
    return "org.apache.kafka.common.security.scram.ScramLoginModule required username="
        + quoted(username)
        + " password="
        + quoted(password)
        + ";";
  }

  private static String quoted(String value) {
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** Without the password: a record's own toString would print it wherever a login is logged. */
  @Override
  public String toString() {
    return "KafkaLogin[username=" + username + ", mechanism=" + mechanism + "]";
  }
}
