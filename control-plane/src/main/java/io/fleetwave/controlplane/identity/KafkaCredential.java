package io.fleetwave.controlplane.identity;

/**
 * The node's own Kafka login, from the Secret Strimzi's User Operator wrote for its KafkaUser: what
 * the enrolment answer gives the agent for its Kafka clients.
 *
 * @param mechanism the SASL mechanism ({@code SCRAM-SHA-512})
 */
public record KafkaCredential(String username, String password, String mechanism) {
  public static final String SCRAM_SHA_512 = "SCRAM-SHA-512";

  /** Without the password: a record's own toString would print it wherever the answer is logged. */
  @Override
  public String toString() {
    return "KafkaCredential[username=" + username + ", mechanism=" + mechanism + "]";
  }
}
