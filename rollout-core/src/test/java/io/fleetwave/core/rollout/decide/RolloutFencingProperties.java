package io.fleetwave.core.rollout.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPaused;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/**
 * Leaders one after another on one rollout, each reading the log (folding it) when it takes the
 * lease and appending from there, while the previous leader's appends still in flight land at any
 * moment, in the order it sent them: whatever the interleaving, the log folds to exactly what the
 * newest leader that appended decided on (its read plus its own appends), so a stale leader's
 * appends never count.
 *
 * <p>Modelled bounds: the lease keeps an append in flight for at most one takeover (the previous
 * leader's land before the next-but-one leader reads), and a leader has appends in flight when it
 * loses the lease only if one of its own already landed on this rollout. The case left out (a
 * leader whose very first appends here are still in flight when its successor's successor reads,
 * while its predecessor's landed after its own read) is the one the term alone cannot order; see
 * the notes on Kafka transactions.
 */
class RolloutFencingProperties {
  private static final UUID ID = UUID.fromString("00000000-0000-0000-0000-00000000f00d");

  enum Step {
    APPEND,
    LAND_STALE,
    TAKE_OVER
  }

  @Property(tries = 1000)
  void theLogFoldsToTheNewestLeadersViewWhateverOrderStaleAppendsLandIn(
      @ForAll("steps") List<Step> steps, @ForAll @IntRange(min = 1, max = 3) int batch) {
    List<Envelope<RolloutEvent>> log = new ArrayList<>();
    Leader current = new Leader(1, List.of());
    current.append(log, List.of(RolloutFencingTest.record(1, 1, RolloutFencingTest.created())));
    current.landedOwn = true;
    Leader previous = null;
    Leader newestAppended = current;
    int staleLanded = 0;
    for (Step step : steps) {
      switch (step) {
        case APPEND -> {
          // The leader sends; one in flight from a new leader lands now, the rest with delay.
          current.send(batch);
          current.landAll(log);
          current.landedOwn = true;
          newestAppended = current;
        }
        case LAND_STALE -> {
          if (previous != null && previous.landOne(log)) {
            staleLanded++;
          }
        }
        case TAKE_OVER -> {
          if (previous != null) {
            previous.landAll(log); // The lease bound: in flight for at most one takeover.
          }
          // The old leader sent a batch before its lease lapsed; it lands later.
          // One more than its successor appends at a time, so some land above its seqs too.
          if (current.landedOwn) {
            current.send(batch + 1);
          }
          previous = current;
          current = new Leader(current.term + 1, fold(log).folded());
        }
      }
    }
    if (previous != null) {
      previous.landAll(log);
    }
    Statistics.label("stale records landed").collect(staleLanded > 0);

    RolloutFold.Folded folded = fold(log);

    assertThat(ids(folded.folded())).containsExactlyElementsOf(ids(newestAppended.view));
    assertThat(folded.run().seq()).isEqualTo(newestAppended.view.getLast().seq());
  }

  @Property(tries = 1000)
  void noRecordIsAppliedAfterAHigherTermInTheLog(
      @ForAll @Size(min = 1, max = 40) List<@IntRange(min = 1, max = 4) Integer> terms,
      @ForAll @Size(min = 40, max = 40) List<@IntRange(min = 2, max = 12) Integer> seqs) {
    List<Envelope<RolloutEvent>> log = new ArrayList<>();
    log.add(RolloutFencingTest.record(0, 1, RolloutFencingTest.created()));
    for (int i = 0; i < terms.size(); i++) {
      log.add(RolloutFencingTest.record(terms.get(i), seqs.get(i), paused(terms.get(i))));
    }

    RolloutFold.Folded folded = fold(log);

    Set<String> applied = new HashSet<>(ids(folded.folded()));
    long highest = -1;
    for (Envelope<RolloutEvent> record : log) {
      if (applied.contains(record.id())) {
        assertThat(record.epoch()).as("term of an applied record").isGreaterThanOrEqualTo(highest);
      }
      highest = Math.max(highest, record.epoch());
    }
    assertThat(folded.folded().size() + folded.ignored().size()).isEqualTo(log.size());
    assertThat(ids(fold(log).folded())).isEqualTo(ids(folded.folded()));
  }

  @Provide
  Arbitrary<List<Step>> steps() {
    return Arbitraries.of(Step.class).list().ofMaxSize(30);
  }

  /** One leader: what it read when it took over plus what it appended, and what is in flight. */
  private static final class Leader {
    final long term;
    final List<Envelope<RolloutEvent>> view;
    final Deque<Envelope<RolloutEvent>> inFlight = new ArrayDeque<>();
    boolean landedOwn;

    Leader(long term, List<Envelope<RolloutEvent>> read) {
      this.term = term;
      this.view = new ArrayList<>(read);
    }

    void send(int count) {
      for (int i = 0; i < count; i++) {
        long seq = view.getLast().seq() + 1;
        Envelope<RolloutEvent> record = RolloutFencingTest.record(term, seq, paused(term));
        view.add(record);
        inFlight.add(record);
      }
    }

    void append(List<Envelope<RolloutEvent>> log, List<Envelope<RolloutEvent>> records) {
      view.addAll(records);
      log.addAll(records);
    }

    boolean landOne(List<Envelope<RolloutEvent>> log) {
      Envelope<RolloutEvent> next = inFlight.poll();
      if (next != null) {
        log.add(next);
      }
      return next != null;
    }

    void landAll(List<Envelope<RolloutEvent>> log) {
      while (landOne(log)) {
        // in the order sent
      }
    }
  }

  private static RolloutEvent paused(long term) {
    return new RolloutPaused("term " + term, "system");
  }

  private static List<String> ids(List<Envelope<RolloutEvent>> records) {
    return records.stream().map(Envelope::id).toList();
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
