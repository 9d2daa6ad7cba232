package io.fleetwave.controlplane.facts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.facts.NodeControls.Control;
import io.fleetwave.controlplane.facts.NodeControls.Desired;
import io.fleetwave.controlplane.facts.NodeControls.Revocation;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.fact.ControlFact;
import io.fleetwave.events.fact.DesiredSpecSet;
import io.fleetwave.events.fact.NodeReadmitted;
import io.fleetwave.events.fact.NodeRevoked;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The control facts held in memory: the follower's fold, and this replica's own appends. */
class NodeControlsTest {
  private static final Instant T1 = Instant.parse("2026-12-07T10:00:00.000001999Z");
  private static final Instant T2 = Instant.parse("2026-12-07T11:00:00Z");

  @Test
  void foldsTheFactsAsTheTablesApplyThem() {
    NodeControls controls = new NodeControls();
    controls.followed(0, spec("n", 4));
    controls.followed(1, spec("n", 2)); // a lower generation after a higher one: the highest stays
    controls.followed(2, revoked("n", T1));
    controls.followed(3, revoked("n", T2)); // revoked again: the first revocation stays
    controls.followed(4, spec("other", 1));

    assertThat(controls.of("n"))
        .isEqualTo(new Control(desired(4), new Revocation(T1.minusNanos(999), "admin")));
    controls.followed(5, readmitted("n"));
    assertThat(controls.of("n")).isEqualTo(new Control(desired(4), null));
    assertThat(controls.of("unknown")).isEqualTo(Control.NONE);
  }

  @Test
  void aFactThisReplicaAppendedShowsBeforeTheFollowerReadsItBack() {
    NodeControls controls = new NodeControls();
    controls.followed(0, spec("n", 1));

    controls.appended(3, revoked("n", T1));
    controls.appended(4, spec("n", 2));

    assertThat(controls.of("n").revocation()).isNotNull();
    assertThat(controls.of("n").desiredGeneration()).isEqualTo(2);
    // Once the follower has passed them, what it folded is what shows.
    controls.followed(1, spec("other", 1));
    controls.followed(2, spec("other", 2));
    controls.followed(3, revoked("n", T1));
    controls.followed(4, spec("n", 2));
    assertThat(controls.of("n")).isEqualTo(new Control(desired(2), new Revocation(T1, "admin")));
  }

  /**
   * Another replica re-admitted the node (offset 1) and this one revoked it again (2) before its
   * follower read the re-admission: the revocation shows at once, and once the follower has read
   * both, the node is revoked at the second revocation's time, as the tables hold it.
   */
  @Test
  void factsOfOtherReplicasThatTheFollowerHasNotReadYetComeInLogOrder() {
    NodeControls controls = new NodeControls();
    controls.followed(0, revoked("n", T1));

    controls.appended(2, revoked("n", T2));
    assertThat(controls.of("n").revocation()).isNotNull();

    controls.followed(1, readmitted("n"));
    assertThat(controls.of("n").revocation()).isEqualTo(new Revocation(T2, "admin"));
    controls.followed(2, revoked("n", T2));
    assertThat(controls.of("n").revocation()).isEqualTo(new Revocation(T2, "admin"));
    // The append is dropped once passed: a later re-admission is not undone by it.
    controls.followed(3, readmitted("n"));
    assertThat(controls.of("n").revocation()).isNull();
  }

  @Test
  void anAppendTheFollowerHasPassedIsNotHeldAgain() {
    NodeControls controls = new NodeControls();
    controls.followed(0, revoked("n", T1));
    controls.followed(1, readmitted("n"));

    controls.appended(0, revoked("n", T1));

    assertThat(controls.of("n")).isEqualTo(Control.NONE);
  }

  /**
   * The desired driver is the one of the spec desired_specs keeps: the highest generation's, in
   * whatever order the facts come; of a generation set twice, the one set first (by its time, to
   * the microsecond; the same time: the one applied first); none when that spec asks for none.
   */
  @Test
  void theDesiredDriverIsTheOneOfTheSpecTheTablesKeep() {
    NodeControls controls = new NodeControls();
    controls.followed(0, spec("n", 3, "580.95.05", T2));
    controls.followed(1, spec("n", 2, "570.1", T2)); // lower: the highest's driver stays
    assertThat(controls.of("n").desiredDriverVersion()).isEqualTo("580.95.05");

    controls.followed(2, spec("n", 3, "575.1", T2.plusNanos(999))); // the same microsecond, later
    assertThat(controls.of("n").desiredDriverVersion()).isEqualTo("580.95.05");
    controls.followed(3, spec("n", 3, "575.2", T2.minusNanos(1))); // set earlier: it is the first
    assertThat(controls.of("n").desired()).isEqualTo(new Desired(3, "575.2", T2.minusNanos(1)));

    controls.appended(5, spec("n", 4, null, T2));
    assertThat(controls.of("n").desiredGeneration()).isEqualTo(4);
    assertThat(controls.of("n").desiredDriverVersion()).isNull();
    assertThat(Control.NONE.desiredDriverVersion()).isNull();
  }

  private static Desired desired(long generation) {
    return new Desired(generation, "580.95.05", T2);
  }

  private static Envelope<ControlFact> spec(String node, long generation) {
    return spec(node, generation, "580.95.05", T2);
  }

  private static Envelope<ControlFact> spec(
      String node, long generation, String driverVersion, Instant at) {
    return fact(
        node,
        new DesiredSpecSet(
            new NodeSpec(node, generation, driverVersion, List.of(), GatePolicy.OPEN), null, at));
  }

  private static Envelope<ControlFact> revoked(String node, Instant at) {
    return fact(node, new NodeRevoked(at, "admin"));
  }

  private static Envelope<ControlFact> readmitted(String node) {
    return fact(node, new NodeReadmitted(T1, "admin"));
  }

  private static Envelope<ControlFact> fact(String node, ControlFact fact) {
    return Envelope.of(URI.create("fleetwave:control-plane"), node, T2, 0, 0, fact);
  }
}
