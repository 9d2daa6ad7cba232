package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.fact.ControlFact;
import io.fleetwave.events.fact.DesiredSpecSet;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
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

  /** Tables of their own, as a rebuild's: the live ones must stay what the log says. */
  private static final ProjectionTables SCRATCH = new ProjectionTables("spec_order_scratch");

  @Inject ControlFacts facts;
  @Inject Pool pool;

  @Test
  void aGenerationSetTwiceKeepsItsFirstTimeWhicheverFactIsAppliedFirst() {
    ProjectionComparison.recreate(pool, SCRATCH).await().atMost(BOUND);
    try {
      for (boolean againFirst : List.of(true, false)) {
        String node = "spec-order-" + againFirst;
        NodeSpec spec = new NodeSpec(node, 1, "580.95.05", List.of(), GatePolicy.OPEN);
        Envelope<ControlFact> first = fact(new DesiredSpecSet(spec, null, FIRST));
        Envelope<ControlFact> again = fact(new DesiredSpecSet(spec, null, AGAIN));

        for (Envelope<ControlFact> fact :
            againFirst ? List.of(again, first) : List.of(first, again)) {
          facts.apply(fact, SCRATCH.schema()).await().atMost(BOUND);
        }

        assertThat(time("updated_at", "desired_specs", node))
            .as("desired_specs, the later fact applied first: %s", againFirst)
            .isEqualTo(FIRST);
        assertThat(time("set_at", "desired_spec_history", node))
            .as("desired_spec_history, the later fact applied first: %s", againFirst)
            .isEqualTo(FIRST);
      }
    } finally {
      pool.query("DROP SCHEMA " + SCRATCH.schema() + " CASCADE").execute().await().atMost(BOUND);
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
                .formatted(column, SCRATCH.table(table)),
            node);
    assertThat(texts).hasSize(1);
    return Instant.parse(texts.getFirst());
  }
}
