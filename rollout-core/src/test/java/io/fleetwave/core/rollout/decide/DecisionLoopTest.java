package io.fleetwave.core.rollout.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeSucceeded;
import io.fleetwave.events.rollout.RolloutEvent;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The engine's decision loop with the real decider, with results arriving while it appends. */
class DecisionLoopTest {
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  @Test
  void aResultArrivingDuringAnAppendDoesNotHoldBackTheStartsTheEarlierResultsFreed() {
    List<String> second = List.of("n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8");
    Map<String, String> zones = new LinkedHashMap<>();
    zones.put("c", "a");
    second.forEach(node -> zones.put(node, "a"));
    DeciderHarness h =
        new DeciderHarness(
            List.of(List.of("c"), second),
            DeciderHarness.rules(
                zones, 4, null, "100%", "100%", FailureAction.PAUSE, false, Duration.ZERO));
    h.throughCanary();
    assertThat(h.run.inFlight()).extracting(NodeRun::node).containsExactly("n1", "n2", "n3", "n4");
    // n1 applied before the round; then one more in-flight node applies while each append waits
    // for Kafka, as a wave's results do when they arrive faster than appends are acknowledged.
    Map<String, Observation> fleet = new HashMap<>();
    fleet.put("n1", applied(h.run.nodeRun("n1")));
    List<List<RolloutEvent>> steps = new ArrayList<>();
    long[] seq = {h.run.seq()};

    DecisionLoop.settle(
        h.run,
        h.decider,
        List.of(),
        (run, candidates, waiting) ->
            new DeciderInput(
                NOW,
                waiting,
                node -> fleet.getOrDefault(node, Observation.NONE),
                Map.of(), // none has a desired spec yet: each starts at generation 1
                List.of()),
        (run, events) -> {
          steps.add(events);
          run.inFlight().stream()
              .filter(node -> !fleet.containsKey(node.node()))
              .findFirst()
              .ifPresent(node -> fleet.put(node.node(), applied(node)));
          List<Envelope<RolloutEvent>> envelopes = new ArrayList<>();
          for (RolloutEvent event : events) {
            envelopes.add(
                Envelope.of(URI.create("test:loop"), run.id().toString(), NOW, 0, ++seq[0], event));
          }
          return envelopes;
        },
        (run, appended) -> {},
        64);

    // The step after n1's result starts the node n1 freed; n2's result (it arrived during that
    // first append) waits for the next round instead of going ahead of the start.
    assertThat(steps.get(0))
        .containsExactly(new NodeSucceeded(2, "n1", h.run.nodeRun("n1").phase(), 0));
    assertThat(steps.get(1)).hasSize(1).first().isInstanceOf(NodeStarted.class);
    assertThat(((NodeStarted) steps.get(1).getFirst()).node()).isEqualTo("n5");
    assertThat(h.run.nodeRun("n2").inFlight()).isTrue();
  }

  private static Observation applied(NodeRun node) {
    return new Observation(node.generation(), 0, null, null, null);
  }
}
