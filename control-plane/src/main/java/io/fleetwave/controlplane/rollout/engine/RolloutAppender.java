package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.logging.LogContext;
import io.fleetwave.core.rollout.decide.RolloutDecider;
import io.fleetwave.core.rollout.decide.RolloutFold;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutFailed;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * Appends the decider's events to fleet.rollout-events as the leader of the engine's term, checking
 * that it still leads before and after (the lease may lapse while Kafka takes the records, and then
 * a successor may not have read them, so nothing they announce may be carried out). Writes one log
 * line per appended decision.
 */
final class RolloutAppender {
  private static final Logger LOG = Logger.getLogger(RolloutEngine.class);

  private final RolloutLog log;
  private final EngineLeadership leadership;
  private final Clock clock;
  private final EngineFaults faults;
  private final EngineOutages outages;
  private final LongSupplier term;

  RolloutAppender(
      RolloutLog log,
      EngineLeadership leadership,
      Clock clock,
      EngineFaults faults,
      EngineOutages outages,
      LongSupplier term) {
    this.log = log;
    this.leadership = leadership;
    this.clock = clock;
    this.faults = faults;
    this.outages = outages;
    this.term = term;
  }

  /** Appends envelopes already made, as the leader of the term, checking that it still is. */
  List<RolloutLog.Position> append(List<Envelope<RolloutEvent>> envelopes) {
    leadership.check(term.getAsLong());
    List<RolloutLog.Position> positions = log.append(envelopes);
    // Kafka is back only once it takes an append: a takeover between two refused appends may
    // read nothing from it (no rollout logged yet), and said so after every refused round.
    outages.kafkaBack();
    leadership.check(term.getAsLong());
    return positions;
  }

  /** The events as the rollout's next envelopes after {@code seq}, in this term, at {@code at}. */
  List<Envelope<RolloutEvent>> envelopes(
      RolloutRun run, long seq, List<RolloutEvent> events, Instant at) {
    return RolloutLog.envelopes(run.id(), term.getAsLong(), seq, events, at);
  }

  /**
   * Appends one step's decided events after the run's seq (acknowledged). An event Kafka refused
   * for good (too large) would be refused forever: the rollout fails instead, above every seq the
   * refused batch may have taken, and the round starts over from the log, the others untouched.
   */
  List<Envelope<RolloutEvent>> decided(RolloutRun run, List<RolloutEvent> events) {
    List<Envelope<RolloutEvent>> envelopes = envelopes(run, run.seq(), events, clock.instant());
    try {
      append(envelopes);
    } catch (RolloutLog.RecordRefusedException refused) {
      RolloutFailed verdict = RolloutDecider.refusedByTheLog(refused.getMessage());
      fail(run, verdict, envelopes.getLast().seq() + 1);
      throw new IllegalStateException(
          "rollout " + run.name() + " failed: " + verdict.describe(), refused);
    }
    return envelopes;
  }

  /** After a step's append: its log lines, then the fault injected there (tests). */
  void logged(RolloutRun run, List<Envelope<RolloutEvent>> envelopes) {
    logDecisions(run.name(), envelopes);
    faults.afterAppend(envelopes);
  }

  /**
   * Appends the decider's verdict on a rollout that cannot go on, at {@code seq}, and folds it: the
   * rollout stops for good, the reason in its status.
   *
   * @return the appended event
   */
  List<Envelope<RolloutEvent>> fail(RolloutRun run, RolloutFailed verdict, long seq) {
    List<Envelope<RolloutEvent>> failure =
        envelopes(run, seq - 1, List.of(verdict), clock.instant());
    append(failure);
    logDecisions(run.name(), failure);
    run.apply(failure.getFirst());
    LOG.errorf("rollout %s failed, the others go on: %s", run.name(), verdict.describe());
    return failure;
  }

  /** One line per appended decision, about the rollout and, where it names one, the node. */
  static void logDecisions(String rollout, List<Envelope<RolloutEvent>> appended) {
    for (Envelope<RolloutEvent> envelope : appended) {
      Optional<String> node = DecisionLines.node(envelope.data());
      try (LogContext.Scope _ = node.map(LogContext::node).orElse(() -> {})) {
        LOG.infof(
            "rollout %s #%d: %s", rollout, envelope.seq(), DecisionLines.describe(envelope.data()));
      }
    }
  }

  /** Records of the log the fold ignored, with the reason (stale terms, duplicates). */
  static void logIgnored(java.util.UUID rollout, RolloutFold.Folded folded) {
    for (RolloutFold.Ignored ignored : folded.ignored()) {
      LOG.warnf(
          "rollout %s: ignoring %s at seq %d of term %d: %s",
          rollout,
          ignored.envelope().type(),
          ignored.envelope().seq(),
          ignored.envelope().epoch(),
          ignored.reason());
    }
  }
}
