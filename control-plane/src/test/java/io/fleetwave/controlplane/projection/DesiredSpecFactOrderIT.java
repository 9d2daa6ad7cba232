package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.fact.ControlFact;
import io.fleetwave.events.fact.DesiredSpecSet;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A generation set twice (the engine that takes over sends its in-flight specs again, a fact each)
 * leaves the same rows whichever of its facts is applied first: the live tables apply a request's
 * own fact at once while the follower may still retry an older one, a rebuild applies them in log
 * order, and the rebuild's comparison found the two apart (the system tier, a black-holed database
 * during a wave start).
 */
@QuarkusTest
class DesiredSpecFactOrderIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final URI SOURCE = URI.create("fleetwave:control-plane");
  private static final Instant FIRST = Instant.parse("2026-12-07T19:45:34.445539Z");
  private static final Instant AGAIN = FIRST.plusSeconds(31);

  @Inject ControlFacts facts;

  @Test
  void aGenerationSetTwiceKeepsItsFirstTimeWhicheverFactIsAppliedFirst() {
    for (boolean againFirst : List.of(true, false)) {
      String node = "spec-order-" + againFirst + "-" + Long.toHexString(System.nanoTime());
      try (TopicClient topic = new TopicClient()) {
        topic.publish(Events.envelope(node, 1, 0, Events.heartbeat(1)));
      }
      await(node + " projected").atMost(BOUND).until(() -> ProjectionRows.isAt(node, 1, 0));
      NodeSpec spec = new NodeSpec(node, 1, "580.95.05", List.of(), GatePolicy.OPEN);
      Envelope<ControlFact> first = fact(new DesiredSpecSet(spec, null, FIRST));
      Envelope<ControlFact> again = fact(new DesiredSpecSet(spec, null, AGAIN));

      for (Envelope<ControlFact> fact :
          againFirst ? List.of(again, first) : List.of(first, again)) {
        facts.apply(fact, ProjectionTables.LIVE.schema()).await().atMost(BOUND);
      }

      assertThat(time("updated_at", "desired_specs", node))
          .as("desired_specs, the later fact applied first: %s", againFirst)
          .isEqualTo(FIRST);
      assertThat(time("set_at", "desired_spec_history", node))
          .as("desired_spec_history, the later fact applied first: %s", againFirst)
          .isEqualTo(FIRST);
    }
  }

  private static Envelope<ControlFact> fact(DesiredSpecSet set) {
    return Envelope.of(SOURCE, set.spec().node(), set.at(), 0, 0, set);
  }

  /** The node's one row's time column, in UTC to the microsecond. */
  private static Instant time(String column, String table, String node) {
    List<String> texts =
        ProjectionRows.texts(
            "SELECT to_char(%s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM %s WHERE node = ?"
                .formatted(column, table),
            node);
    assertThat(texts).hasSize(1);
    return Instant.parse(texts.getFirst());
  }
}
