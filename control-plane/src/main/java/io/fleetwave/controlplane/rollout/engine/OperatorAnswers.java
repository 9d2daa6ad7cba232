package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.facts.ControlFactLog;
import io.fleetwave.controlplane.facts.FactNotRecordedException;
import io.fleetwave.core.rollout.decide.OperatorOutcome;
import io.fleetwave.core.rollout.decide.OperatorRequest;
import io.fleetwave.core.rollout.decide.RolloutDecider;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.fact.ControlFact;
import io.fleetwave.events.fact.OperatorRequestHandled;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The engine's answers to operator requests: each recorded as an {@link OperatorRequestHandled}
 * fact on fleet.control-facts (acknowledged), then stored in rollout_requests, which signals the
 * waiting call. So a rebuilt database holds every answered request answered, and no engine handles
 * it again. An answer Kafka does not take is owed, as the engine's other appends wait for Kafka:
 * recorded again before each round, oldest first, and its request is kept from the decider
 * meanwhile (it has become its events already; handled again it would be refused, or done twice).
 */
final class OperatorAnswers {
  private static final Logger LOG = Logger.getLogger(RolloutEngine.class);

  private final ControlFactLog facts;
  private final RolloutProgressStore store;
  private final Clock clock;
  // By request id, in the order answered; the fact once Kafka took it (stored next).
  private final Map<UUID, Owed> owed = new LinkedHashMap<>();
  private Instant waitingSince;

  private record Owed(UUID rollout, OperatorOutcome outcome, Envelope<ControlFact> recorded) {}

  OperatorAnswers(ControlFactLog facts, RolloutProgressStore store, Clock clock) {
    this.facts = facts;
    this.store = store;
    this.clock = clock;
  }

  /** Records and stores the answer; owed when Kafka does not take it. */
  void answer(UUID rollout, OperatorOutcome outcome) {
    owed.put(outcome.requestId(), new Owed(rollout, outcome, null));
    settle();
  }

  /**
   * Records and stores the answers owed, oldest first, up to the first Kafka does not take.
   *
   * @throws RuntimeException when PostgreSQL does not store a recorded answer (it stays owed, and
   *     is stored once by its fact's id: by the next attempt or by the facts' follower)
   */
  void settle() {
    for (Owed answer : List.copyOf(owed.values())) {
      UUID request = answer.outcome().requestId();
      Envelope<ControlFact> recorded = answer.recorded();
      if (recorded == null) {
        try {
          recorded = record(answer);
        } catch (FactNotRecordedException e) {
          if (waitingSince == null) {
            waitingSince = clock.instant();
            LOG.warnf(
                "answer to operator request %s owed until Kafka records it (%d owed; their"
                    + " requests are not handled again): %s",
                request, owed.size(), e.getMessage());
          }
          return;
        }
        owed.put(request, new Owed(answer.rollout(), answer.outcome(), recorded));
      }
      store.answered(recorded, (OperatorRequestHandled) recorded.data());
      owed.remove(request);
    }
    if (waitingSince != null) {
      LOG.infof(
          "owed answers to operator requests recorded: Kafka took them after %d s",
          java.time.Duration.between(waitingSince, clock.instant()).toSeconds());
      waitingSince = null;
    }
  }

  /** The pending requests without those answered already (their answers owed). */
  Map<UUID, List<OperatorRequest>> unanswered(Map<UUID, List<OperatorRequest>> pending) {
    if (owed.isEmpty()) {
      return pending;
    }
    Map<UUID, List<OperatorRequest>> out = new LinkedHashMap<>();
    pending.forEach(
        (rollout, requests) -> {
          List<OperatorRequest> left =
              requests.stream().filter(r -> !owed.containsKey(r.id())).toList();
          if (!left.isEmpty()) {
            out.put(rollout, left);
          }
        });
    return out;
  }

  private Envelope<ControlFact> record(Owed answer) {
    Instant at = clock.instant();
    return facts
        .append(
            answer.rollout().toString(),
            new OperatorRequestHandled(answer.outcome().requestId(), answer.outcome().wire(), at),
            at)
        .await()
        .atMost(ControlFactLog.BOUND.multipliedBy(2));
  }

  /**
   * The requests of rollouts no engine round took up ({@code active} are those it did) whose
   * rollout has finished: refused as no longer active.
   */
  void refuseFinished(Map<UUID, List<OperatorRequest>> requests, Set<UUID> active) {
    Set<UUID> elsewhere = new HashSet<>(requests.keySet());
    elsewhere.removeAll(active);
    Set<UUID> finished = store.finished(elsewhere);
    for (Map.Entry<UUID, List<OperatorRequest>> entry : requests.entrySet()) {
      if (finished.contains(entry.getKey())) {
        for (OperatorRequest request : entry.getValue()) {
          answer(entry.getKey(), RolloutDecider.noLongerActive(request));
        }
      }
    }
  }
}
