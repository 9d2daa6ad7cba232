package io.fleetwave.core.rollout.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutAborted;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.WaveStarted;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The fold's term rule ({@link RolloutFold}) on the two orders Kafka can give a stale leader's
 * append: after its successor's first append, or between its successor's read and first append.
 */
class RolloutFencingTest {
  private static final UUID ID = UUID.fromString("00000000-0000-0000-0000-00000000f00d");
  private static final Instant AT = Instant.parse("2026-11-30T12:00:00Z");

  @Test
  void anAppendFromALowerTermAfterAHigherOneIsIgnored() {
    var created = record(1, 1, created());
    var started = record(2, 2, new WaveStarted(1));
    var stale = record(1, 2, new RolloutAborted("a leader that lost its lease", "system"));

    RolloutFold.Folded folded = fold(List.of(created, started, stale));

    assertThat(folded.folded()).containsExactly(created, started);
    assertThat(folded.ignored())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.envelope()).isEqualTo(stale);
              assertThat(i.reason()).isEqualTo("term 1 is below term 2 already in the log");
            });
    assertThat(folded.run().status()).isEqualTo(RunStatus.RUNNING);
    assertThat(folded.run().currentWave()).isEqualTo(1);
    assertThat(folded.run().term()).isEqualTo(2);
  }

  @Test
  void aLowerTermsAppendsTheNextLeaderHadNotReadAreSupersededByItsFirstAppend() {
    var created = record(1, 1, created());
    // Landed after term 2's leader read the log (it saw seq 1 only), before its first append.
    var stale2 = record(1, 2, new RolloutPaused("stale", "system"));
    var stale3 = record(1, 3, new RolloutAborted("stale", "system"));
    var successor = record(2, 2, new WaveStarted(1));

    RolloutFold.Folded folded = fold(List.of(created, stale2, stale3, successor));

    assertThat(folded.folded()).containsExactly(created, successor);
    assertThat(folded.ignored())
        .extracting(RolloutFold.Ignored::envelope)
        .containsExactlyInAnyOrder(stale2, stale3);
    assertThat(folded.ignored())
        .extracting(RolloutFold.Ignored::reason)
        .containsOnly("superseded by term 2, whose leader continued from seq 1");
    assertThat(folded.run().status()).isEqualTo(RunStatus.RUNNING);
    assertThat(folded.run().seq()).isEqualTo(2);
  }

  @Test
  void aDuplicateOfTheSameTermIsIgnoredAndLaterSeqsApply() {
    var created = record(3, 1, created());
    var started = record(3, 2, new WaveStarted(1));
    var paused = record(3, 3, new RolloutPaused("operator", "alice"));

    RolloutFold.Folded folded = fold(List.of(created, started, started, paused));

    assertThat(folded.folded()).containsExactly(created, started, paused);
    assertThat(folded.ignored())
        .singleElement()
        .extracting(RolloutFold.Ignored::reason)
        .isEqualTo("duplicate of seq 2");
    assertThat(folded.run().status()).isEqualTo(RunStatus.PAUSED);
  }

  @Test
  void applyRefusesALowerTermAsTheFoldDoes() {
    RolloutRun run = RolloutRun.from(ID, record(2, 1, created()));

    assertThat(run.apply(record(1, 2, new RolloutAborted("stale", "system")))).isFalse();
    assertThat(run.apply(record(2, 2, new WaveStarted(1)))).isTrue();
    assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
  }

  static RolloutCreated created() {
    return new RolloutCreated("fencing", List.of(List.of("n-1", "n-2")), null, null, "alice");
  }

  static Envelope<RolloutEvent> record(long term, long seq, RolloutEvent event) {
    return Envelope.of(URI.create("test:fencing"), ID.toString(), AT, term, seq, event);
  }

  /** The fold over these records as the log holds them (offsets in list order). */
  private static RolloutFold.Folded fold(List<Envelope<RolloutEvent>> log) {
    List<LoggedRecord> records = new ArrayList<>(log.size());
    for (int i = 0; i < log.size(); i++) {
      records.add(LoggedRecord.decoded("fleet.rollout-events", 0, i, 200, log.get(i)));
    }
    return RolloutFold.fold(ID, records, plan -> Optional.empty());
  }
}
