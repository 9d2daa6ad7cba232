package io.fleetwave.controlplane.identity;

/**
 * The node's Kafka credential could not be made or read (the User Operator did not write its Secret
 * within the bound, or the Kubernetes API refused or failed): nothing was enrolled, and the agent
 * tries again (503).
 */
public class KafkaCredentialUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KafkaCredentialUnavailableException(String message) {
    super(message);
  }

  public KafkaCredentialUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
