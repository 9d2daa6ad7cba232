package io.fleetwave.core.rollout.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.spec.NodeSpec;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * given(events).when(input).expect(events), after Axon's AggregateTestFixture, over the real fold
 * ({@link RolloutRun#apply}) and the real decider: the events of the log so far, what the decider
 * is given, and exactly the events (and verdicts) one decision returns.
 */
final class RolloutFixture {
  static final UUID ID = UUID.fromString("5e1f0000-0000-4000-8000-000000000001");
  static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");

  private final RolloutDecider decider;
  private final List<Envelope<RolloutEvent>> given = new ArrayList<>();

  private RolloutFixture(RolloutDecider decider) {
    this.decider = decider;
  }

  static RolloutFixture with(RolloutRules rules) {
    return new RolloutFixture(new RolloutDecider(rules));
  }

  static RolloutFixture with(RolloutRules rules, Duration drainBound) {
    return new RolloutFixture(new RolloutDecider(rules, drainBound));
  }

  /** The log so far: a RolloutCreated first, each event logged at {@link #T0}. */
  RolloutFixture given(RolloutEvent... events) {
    return givenAt(T0, events);
  }

  /** More of the log, logged at {@code time}. */
  RolloutFixture givenAt(Instant time, RolloutEvent... events) {
    for (RolloutEvent event : events) {
      given.add(
          Envelope.of(URI.create("test:log"), ID.toString(), time, 0, given.size() + 1, event));
    }
    return this;
  }

  When when(Input input) {
    RolloutRun run = RolloutRun.from(ID, given.getFirst());
    given.forEach(run::apply);
    return new When(run, decider.decide(run, input.build()));
  }

  static Input at(Instant now) {
    return new Input(now);
  }

  /** What the decider is given, built step by step. */
  static final class Input {
    private final Instant now;
    private final List<OperatorRequest> requests = new ArrayList<>();
    private final Map<String, Observation> fleet = new HashMap<>();
    private final Map<String, NodeSpec> desired = new HashMap<>();
    private final List<EffectReport> reports = new ArrayList<>();

    private Input(Instant now) {
      this.now = now;
    }

    Input request(OperatorRequest request) {
      requests.add(request);
      return this;
    }

    Input seen(String node, Observation observation) {
      fleet.put(node, observation);
      return this;
    }

    Input desired(NodeSpec spec) {
      desired.put(spec.node(), spec);
      return this;
    }

    Input reported(EffectReport report) {
      reports.add(report);
      return this;
    }

    DeciderInput build() {
      return new DeciderInput(
          now, requests, n -> fleet.getOrDefault(n, Observation.NONE), desired, reports);
    }
  }

  record When(RolloutRun run, Decision decision) {
    When expect(RolloutEvent... events) {
      assertThat(decision.events()).containsExactly(events);
      return this;
    }

    When expectNothing() {
      assertThat(decision.events()).isEmpty();
      assertThat(decision.verdicts()).isEmpty();
      return this;
    }

    When expectVerdicts(OperatorOutcome... verdicts) {
      assertThat(decision.verdicts()).containsExactly(verdicts);
      return this;
    }
  }

  static RolloutCreated created(List<List<String>> waves) {
    return new RolloutCreated("fixture", waves, null, null, "alice");
  }
}
