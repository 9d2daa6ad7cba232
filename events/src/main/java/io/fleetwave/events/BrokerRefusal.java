package io.fleetwave.events;

import java.util.Optional;

/**
 * The broker refusing a client: its credentials (authentication: SASL, TLS) or its rights (ACLs),
 * found among a failure's causes. No retry with the same settings overcomes either, so the control
 * plane and the agent both look for it before retrying; each then says in its own words which
 * settings to look at. The client hands in Kafka's exception types, so that this contract imports
 * no Kafka (ArchitectureTest).
 */
public final class BrokerRefusal {
  private BrokerRefusal() {}

  /** The outermost of {@code failure} and its causes that is one of {@code refusals}. */
  public static Optional<Throwable> find(Throwable failure, Class<?>... refusals) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      for (Class<?> refusal : refusals) {
        if (refusal.isInstance(t)) {
          return Optional.of(t);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Why the broker refused {@code client}, when {@code failure} or one of its causes is the {@code
   * authentication} or the {@code authorization} refusal: e.g. {@code refused the agent's
   * credentials (SaslAuthenticationException: Authentication failed ...): check ...}. The control
   * plane and the agent word it alike; only the client and the settings to look at differ.
   */
  public static Optional<String> explain(
      Throwable failure,
      Class<? extends Throwable> authentication,
      Class<? extends Throwable> authorization,
      String client,
      String checkCredentials,
      String checkRights) {
    return find(failure, authentication, authorization)
        .map(
            t ->
                authentication.isInstance(t)
                    ? "refused "
                        + client
                        + "'s credentials ("
                        + kafkas(t)
                        + "): "
                        + checkCredentials
                    : "refused " + client + " access (" + kafkas(t) + "): " + checkRights);
  }

  /**
   * Kafka's own words for the refusal: its exception and message, e.g. {@code
   * SaslAuthenticationException: Authentication failed ...}. They name the mechanism or the topics,
   * never a secret.
   */
  public static String kafkas(Throwable refusal) {
    return refusal.getClass().getSimpleName() + ": " + refusal.getMessage();
  }
}
