package io.fleetwave.agent.desired;

import io.fleetwave.agent.reconcile.StepDeadlines;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.command.CommandStream;
import io.fleetwave.events.security.CommandVerifier;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Settings of following the desired spec and the commands of a node (or of every simulated node in
 * a JVM).
 *
 * @param verifier checks every spec and command against the control plane's public key
 * @param desiredTopic the compacted topic of desired specs, key = node name
 * @param commandsTopic the topic of one-shot commands, key = node name
 * @param deadlines per step kind
 * @param retryBackoff delays before retrying a failed spec, one per consecutive failure; the last
 *     repeats (a new spec retries at once)
 * @param catchUpTimeout bound on reading the desired topic to its end after a start
 * @param interceptor test hook after each step (crash injection)
 * @param clock the agent's clock, for command expiry
 * @param applyDelay simulated time a node takes to start converging a new spec (benchmarks of
 *     simulated fleets); zero for real hosts. Waited on a timer, never on a worker thread, so many
 *     nodes can be "applying" at once on a small pool.
 */
public record SpecFollowing(
    CommandVerifier verifier,
    String desiredTopic,
    String commandsTopic,
    StepDeadlines deadlines,
    List<Duration> retryBackoff,
    Duration catchUpTimeout,
    StepInterceptor interceptor,
    Clock clock,
    Duration applyDelay) {

  public SpecFollowing {
    Objects.requireNonNull(verifier, "verifier (the control plane's public key)");
    Objects.requireNonNull(desiredTopic, "desiredTopic");
    Objects.requireNonNull(commandsTopic, "commandsTopic");
    Objects.requireNonNull(deadlines, "deadlines");
    Objects.requireNonNull(catchUpTimeout, "catchUpTimeout");
    Objects.requireNonNull(interceptor, "interceptor");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(applyDelay, "applyDelay");
    if (applyDelay.isNegative()) {
      throw new IllegalArgumentException("applyDelay must not be negative, got " + applyDelay);
    }
    retryBackoff = List.copyOf(retryBackoff);
    if (retryBackoff.isEmpty()
        || retryBackoff.stream().anyMatch(d -> d.isNegative() || d.isZero())) {
      throw new IllegalArgumentException(
          "retryBackoff must list positive delays, got " + retryBackoff);
    }
  }

  /** Defaults: the standard topics, default deadlines, retries after 5 s, 30 s, then every 60 s. */
  public static SpecFollowing of(CommandVerifier verifier) {
    return new SpecFollowing(
        verifier,
        Topics.NODE_DESIRED,
        Topics.NODE_COMMANDS,
        StepDeadlines.defaults(),
        List.of(Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(60)),
        Duration.ofSeconds(30),
        StepInterceptor.NONE,
        Clock.systemUTC(),
        Duration.ZERO);
  }

  public SpecFollowing withInterceptor(StepInterceptor interceptor) {
    return with(deadlines, retryBackoff, interceptor, applyDelay);
  }

  public SpecFollowing withDeadlines(StepDeadlines deadlines) {
    return with(deadlines, retryBackoff, interceptor, applyDelay);
  }

  public SpecFollowing withRetryBackoff(List<Duration> retryBackoff) {
    return with(deadlines, retryBackoff, interceptor, applyDelay);
  }

  public SpecFollowing withApplyDelay(Duration applyDelay) {
    return with(deadlines, retryBackoff, interceptor, applyDelay);
  }

  /** These settings with the ones a test or a simulated fleet tunes replaced. */
  private SpecFollowing with(
      StepDeadlines deadlines,
      List<Duration> retryBackoff,
      StepInterceptor interceptor,
      Duration applyDelay) {
    return new SpecFollowing(
        verifier,
        desiredTopic,
        commandsTopic,
        deadlines,
        retryBackoff,
        catchUpTimeout,
        interceptor,
        clock,
        applyDelay);
  }

  /**
   * Trusts a desired record as a node's newest spec when it verifies as a spec for that node on the
   * desired stream (signed by a trusted key, in its validity window), whatever the generation.
   */
  public CommandFollower.Ranking ranking() {
    return (node, value) -> {
      try {
        CommandEnvelope command = CommandCodec.decode(value);
        return verifier.verify(command, CommandStream.DESIRED, node, 0, clock.instant()).accepted()
            ? command.data().generation()
            : -1;
      } catch (EventRejectedException e) {
        return -1;
      }
    };
  }

  /** The delay before retry number {@code failures} (1 = after the first failure). */
  Duration backoff(int failures) {
    return retryBackoff.get(Math.min(Math.max(failures, 1), retryBackoff.size()) - 1);
  }
}
