package io.fleetwave.simulator;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How the nodes of a simulated fleet get their identity, as real agents do: each node makes its own
 * Ed25519 key, enrolls it through the control plane's enrolment API ({@code POST
 * /api/v1/nodes/{name}/enrolment}, the node agent's {@link io.fleetwave.agent.identity.Enrolment})
 * with a join token bound to its name, and every event it publishes is signed with that key.
 *
 * @param controlPlane the base URL of the control plane's API, once it accepts connections: a
 *     control plane that starts its own fleet (the demo) starts it before its HTTP server listens,
 *     on a port it may learn only then
 * @param joinTokens where each node's join token comes from
 * @param concurrency how many nodes enroll at once (each enrolment is a transaction in the control
 *     plane's database: a fleet of thousands enrolls in parallel, but not all at once)
 * @param patience bound on each node's enrolment; an unreachable control plane and a 429 (too many
 *     attempts) are tried again within it
 */
public record FleetEnrolment(
    CompletionStage<URI> controlPlane, JoinTokens joinTokens, int concurrency, Duration patience) {
  static final int DEFAULT_CONCURRENCY = 16;
  static final Duration DEFAULT_PATIENCE = Duration.ofMinutes(2);

  /** Mints one-time join tokens: the demo as its in-process admin, tests through the API. */
  @FunctionalInterface
  public interface JoinTokens {
    /**
     * A join token that enrolls {@code node} once; a new one at each call (a node whose first token
     * was used by an enrolment whose answer was lost asks again).
     *
     * @throws RuntimeException when none could be made; the node does not start
     */
    String mint(String node);
  }

  public FleetEnrolment {
    Objects.requireNonNull(controlPlane, "controlPlane");
    Objects.requireNonNull(joinTokens, "joinTokens");
    Objects.requireNonNull(patience, "patience");
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be at least 1, got " + concurrency);
    }
  }

  /** Enrolling with the control plane at {@code controlPlane}, which is reachable now. */
  public static FleetEnrolment of(URI controlPlane, JoinTokens joinTokens) {
    return whenListening(CompletableFuture.completedFuture(controlPlane), joinTokens);
  }

  /** Enrolling with the control plane at the URL {@code listening} completes with, once it does. */
  public static FleetEnrolment whenListening(
      CompletionStage<URI> listening, JoinTokens joinTokens) {
    return new FleetEnrolment(listening, joinTokens, DEFAULT_CONCURRENCY, DEFAULT_PATIENCE);
  }
}
