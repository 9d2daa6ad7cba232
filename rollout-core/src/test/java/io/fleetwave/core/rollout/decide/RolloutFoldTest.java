package io.fleetwave.core.rollout.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.codec.RolloutChunks;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RolloutCompleted;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutFailed;
import io.fleetwave.events.rollout.WaveStarted;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The one fold that decides whether a rollout's log folds, for the engine and the rebuild. */
class RolloutFoldTest {
  private static final UUID ID = UUID.fromString("5e1f0000-0000-4000-8000-00000000f01d");
  private static final String TOPIC = "fleet.rollout-events";

  private final List<LoggedRecord> log = new ArrayList<>();

  @Test
  void aLogThatFoldsGivesItsRunAndNoVerdict() {
    logged(1, created(2));
    logged(2, new WaveStarted(1));
    logged(3, new NodeStarted(1, "n0", Phase.ROLLBACK, 2, null));

    RolloutFold.Folded fold = fold();

    assertThat(fold.verdict()).isNull();
    assertThat(fold.run().nodeRun("n0").inFlight()).isTrue();
    assertThat(fold.folded()).hasSize(3);
    assertThat(fold.nextSeq()).isEqualTo(4);
  }

  @Test
  void aContradictingRecordStopsTheFoldThereAndIsNamedInTheVerdict() {
    logged(1, created(2));
    logged(2, new WaveStarted(1));
    logged(3, new NodeStarted(1, "ghost", Phase.ROLLBACK, 2, null));
    logged(4, new NodeStarted(1, "n0", Phase.ROLLBACK, 2, null));

    RolloutFold.Folded fold = fold();

    assertThat(fold.verdict())
        .isEqualTo(
            new RolloutFailed(
                TOPIC,
                0,
                102,
                "io.fleetwave.rollout.node-started.v1 contradicts the rollout: rollout "
                    + ID
                    + " has no planned node 'ghost'"));
    assertThat(fold.run().nodeRun("n0").inFlight()).as("nothing after it is folded").isFalse();
    assertThat(fold.run().seq()).isEqualTo(2);
    assertThat(fold.nextSeq()).isEqualTo(5);
  }

  @Test
  void aWaveTheRolloutDoesNotHaveContradictsIt() {
    logged(1, created(2));
    logged(2, new WaveStarted(3));

    assertThat(fold().verdict().reason()).contains("has waves 1 to 2, not wave 3");
  }

  @Test
  void anUndecodableOrOversizedRecordFailsTheRolloutEvenAsItsFirst() {
    log.add(LoggedRecord.rejected(TOPIC, 0, 100, 9, "not JSON"));

    RolloutFold.Folded undecodable = fold();

    assertThat(undecodable.run()).isNull();
    assertThat(undecodable.verdict().describe())
        .isEqualTo(
            "record fleet.rollout-events-0@100 could not be folded: it does not decode: not JSON");

    log.clear();
    logged(1, created(2));
    log.add(
        LoggedRecord.decoded(
            TOPIC, 0, 101, RolloutFold.MAX_RECORD_BYTES + 1, envelope(2, new WaveStarted(1))));
    assertThat(fold().verdict().reason()).contains("larger than any record the engine writes");
  }

  @Test
  void theLoggedVerdictEndsTheRolloutAndNothingAfterItIsJudged() {
    log.add(LoggedRecord.rejected(TOPIC, 0, 100, 9, "not JSON"));
    RolloutFailed verdict = fold().verdict();
    logged(1, verdict);
    log.add(LoggedRecord.rejected(TOPIC, 0, 102, 9, "more garbage"));

    RolloutFold.Folded fold = fold();

    assertThat(fold.verdict()).isNull();
    assertThat(fold.run().status()).isEqualTo(RunStatus.FAILED);
    assertThat(fold.run().statusReason()).isEqualTo(verdict.describe());
  }

  @Test
  void aFinishedRolloutKeepsItsOutcomeWhateverFollowsIt() {
    logged(1, created(1));
    logged(2, new RolloutCompleted(false, 1, 0));
    log.add(LoggedRecord.rejected(TOPIC, 0, 102, 9, "not JSON"));

    RolloutFold.Folded fold = fold();

    assertThat(fold.verdict()).isNull();
    assertThat(fold.run().status()).isEqualTo(RunStatus.COMPLETED);
  }

  @Test
  void aPlanThatDoesNotReadFailsTheRolloutAtItsCreation() {
    logged(1, created(2));

    RolloutFold.Folded fold = RolloutFold.fold(ID, log, plan -> Optional.of("no strategy"));

    assertThat(fold.run()).isNull();
    assertThat(fold.verdict().offset()).isEqualTo(100);
    assertThat(fold.verdict().reason()).isEqualTo("its plan does not read: no strategy");
  }

  @Test
  void aCreationInChunksFoldsOnceItsLastChunkIsInAndAgainAfterALeaderLoggedItTwice() {
    List<RolloutEvent> chunked = RolloutChunks.of(created(100_000));
    assertThat(chunked).hasSizeGreaterThan(2);
    // The first leader stopped after two chunks; the next logged the whole creation again.
    for (int i = 0; i < 3; i++) {
      logged(i + 1, chunked.get(i));
    }
    assertThat(fold().run()).as("not startable before its last chunk").isNull();
    assertThat(fold().verdict()).isNull();
    for (int i = 0; i < chunked.size(); i++) {
      logged(i + 1, chunked.get(i));
    }
    logged(chunked.size() + 1, new WaveStarted(1));

    RolloutFold.Folded fold = fold();

    assertThat(fold.verdict()).isNull();
    assertThat(fold.run().plannedNodes()).isEqualTo(100_000);
    assertThat(fold.run().created()).isEqualTo(created(100_000));
    assertThat(fold.run().currentWave()).isEqualTo(1);
  }

  @Test
  void chunksOutOfOrderFailTheRollout() {
    List<RolloutEvent> chunked = RolloutChunks.of(created(100_000));
    logged(1, chunked.get(0));
    logged(2, chunked.get(2));

    assertThat(fold().verdict().reason()).isEqualTo("plan chunk 1 where chunk 0 belongs");
  }

  private RolloutFold.Folded fold() {
    return RolloutFold.fold(ID, log, plan -> Optional.empty());
  }

  private void logged(long seq, RolloutEvent event) {
    log.add(LoggedRecord.decoded(TOPIC, 0, 100 + log.size(), 200, envelope(seq, event)));
  }

  private static Envelope<RolloutEvent> envelope(long seq, RolloutEvent event) {
    return Envelope.of(URI.create("test:log"), ID.toString(), Instant.EPOCH, 0, seq, event);
  }

  private static RolloutCreated created(int nodes) {
    List<String> rest = new ArrayList<>();
    for (int i = 1; i < nodes; i++) {
      rest.add("n" + i);
    }
    List<List<String>> waves =
        rest.isEmpty() ? List.of(List.of("n0")) : List.of(List.of("n0"), rest);
    return new RolloutCreated(
        "fold",
        waves,
        EventCodec.mapper().createObjectNode().put("name", "fold"),
        EventCodec.mapper().createObjectNode().put("plannedNodes", nodes),
        "alice");
  }
}
