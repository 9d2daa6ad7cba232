package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.RolloutChunks;
import io.fleetwave.events.rollout.DriverInstallRequested;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeSkipped;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeSucceeded;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.OsUpgradeRequested;
import io.fleetwave.events.rollout.RollbackStarted;
import io.fleetwave.events.rollout.RolloutAborted;
import io.fleetwave.events.rollout.RolloutCompleted;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutCreatedInChunks;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutFailed;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.RolloutPlanChunk;
import io.fleetwave.events.rollout.RolloutResumed;
import io.fleetwave.events.rollout.WaveCompleted;
import io.fleetwave.events.rollout.WavePromoted;
import io.fleetwave.events.rollout.WaveStarted;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * Folds one rollout's records of fleet.rollout-events, in log order, into its {@link RolloutRun}:
 * the one place that decides whether a rollout's log can be folded, used by the engine when it
 * takes over and by the rebuild, so both reach the same verdict.
 *
 * <p>A record that does not decode, is larger than any record the engine writes, or contradicts the
 * rollout's folded state (an event the run cannot apply, chunks that do not join, a plan that does
 * not read) fails that rollout and no other: the fold stops there and returns the {@link
 * RolloutFailed} naming the record. Once that verdict is in the log, the rollout folds to {@code
 * failed}. Nothing after a rollout's end (completed, aborted, rolled back, failed) is folded: its
 * outcome stands.
 *
 * <p>Before that, the leaders' terms order the log (each record's envelope epoch is the term of the
 * engine leader that appended it; see the control plane's {@code EngineLeadership}):
 *
 * <ul>
 *   <li>A record from a term lower than the highest seen before it is ignored: its leader had lost
 *       its lease when the record landed after its successor's.
 *   <li>The first record of a higher term at seq s continues from seq s - 1, as its leader read the
 *       log when it took over; records of lower terms at seq s or above landed after that read (a
 *       stale leader's appends in flight) and are ignored, since its successor never saw them.
 *   <li>A record at or below the last kept seq of its own term is a duplicate.
 * </ul>
 *
 * A record that does not decode has no term: it stays where it is, for the fold to judge.
 */
public final class RolloutFold {
  /**
   * Larger records were not written by an engine: Kafka's default limit, and every record the
   * engine writes stays well below it ({@link RolloutChunks}).
   */
  public static final int MAX_RECORD_BYTES = 1024 * 1024;

  /**
   * A rollout's log, folded.
   *
   * @param run the folded rollout; null while its creation is not complete in the log (chunks still
   *     missing), so there is nothing to run yet
   * @param verdict the failure to append, when a record could not be folded and the log does not
   *     hold the verdict yet; null otherwise
   * @param folded the events that were folded, in log order (the projection's event log)
   * @param nextSeq the seq for the rollout's next event: above every seq in its log
   */
  public record Folded(
      RolloutRun run,
      RolloutFailed verdict,
      List<Envelope<RolloutEvent>> folded,
      long nextSeq,
      List<Ignored> ignored) {}

  /** A record the terms left out, and why (a stale leader's append, a duplicate). */
  public record Ignored(Envelope<RolloutEvent> envelope, String reason) {}

  private RolloutFold() {}

  /**
   * @param planProblem why the plan a creation carries does not read as the plan the engine runs
   *     by, or empty (for a creation logged as v1, without a plan, too): the core passes the
   *     creation through without reading its JSON
   */
  public static Folded fold(
      UUID id, List<LoggedRecord> records, Function<RolloutCreated, Optional<String>> planProblem) {
    List<Ignored> ignored = new ArrayList<>();
    List<LoggedRecord> kept = byTerm(records, ignored);
    Folded folded = new Folding(id, planProblem).fold(kept);
    return new Folded(
        folded.run(),
        folded.verdict(),
        folded.folded(),
        Math.max(folded.nextSeq(), maxSeq(records) + 1),
        List.copyOf(ignored));
  }

  /** The records the leaders' terms keep, in log order; the others go to {@code ignored}. */
  private static List<LoggedRecord> byTerm(List<LoggedRecord> records, List<Ignored> ignored) {
    List<LoggedRecord> kept = new ArrayList<>(records.size());
    long highest = -1;
    long lastSeq = -1;
    for (LoggedRecord record : records) {
      Envelope<RolloutEvent> envelope = record.envelope();
      if (envelope == null) {
        kept.add(record);
        continue;
      }
      long term = envelope.epoch();
      if (term < highest) {
        ignored.add(
            new Ignored(
                envelope, "term " + term + " is below term " + highest + " already in the log"));
        continue;
      }
      if (term > highest) {
        for (int i = kept.size() - 1; i >= 0; i--) {
          Envelope<RolloutEvent> earlier = kept.get(i).envelope();
          if (earlier == null) {
            continue;
          }
          if (earlier.seq() < envelope.seq()) {
            break;
          }
          kept.remove(i);
          ignored.add(
              new Ignored(
                  earlier,
                  "superseded by term "
                      + term
                      + ", whose leader continued from seq "
                      + (envelope.seq() - 1)));
        }
        highest = term;
      } else if (envelope.seq() <= lastSeq) {
        ignored.add(new Ignored(envelope, "duplicate of seq " + envelope.seq()));
        continue;
      }
      lastSeq = envelope.seq();
      kept.add(record);
    }
    return kept;
  }

  private static long maxSeq(List<LoggedRecord> records) {
    long max = 0;
    for (LoggedRecord record : records) {
      if (record.envelope() != null) {
        max = Math.max(max, record.envelope().seq());
      }
    }
    return max;
  }

  private static final class Folding {
    private final UUID id;
    private final Function<RolloutCreated, Optional<String>> planProblem;
    private final List<Envelope<RolloutEvent>> folded = new ArrayList<>();
    private final List<RolloutPlanChunk> chunks = new ArrayList<>();
    private RolloutRun run;
    private RolloutCreatedInChunks header;
    private long chunkSeq;
    private RolloutFailed verdict;
    private long maxSeq;

    Folding(UUID id, Function<RolloutCreated, Optional<String>> planProblem) {
      this.id = id;
      this.planProblem = planProblem;
    }

    Folded fold(List<LoggedRecord> records) {
      for (LoggedRecord record : records) {
        if (record.envelope() != null) {
          maxSeq = Math.max(maxSeq, record.envelope().seq());
        }
        if (run != null && !run.status().active()) {
          continue;
        }
        if (record.envelope() != null && record.envelope().data() instanceof RolloutFailed) {
          // The verdict, logged: it holds whatever came before it.
          if (run == null) {
            run = RolloutRun.uncreated(id);
          }
          run.apply(record.envelope());
          folded.add(record.envelope());
          verdict = null;
          continue;
        }
        if (verdict != null) {
          continue;
        }
        problem(record)
            .ifPresent(
                why ->
                    verdict =
                        RolloutDecider.cannotFold(
                            record.topic(), record.partition(), record.offset(), why));
      }
      return new Folded(run, verdict, List.copyOf(folded), maxSeq + 1, List.of());
    }

    /** Folds one record; why it cannot be folded, or empty. */
    private Optional<String> problem(LoggedRecord record) {
      if (record.envelope() == null) {
        return Optional.of("it does not decode: " + record.rejection());
      }
      if (record.bytes() > MAX_RECORD_BYTES) {
        return Optional.of(
            "it is "
                + record.bytes()
                + " bytes, larger than any record the engine writes ("
                + MAX_RECORD_BYTES
                + ")");
      }
      Envelope<RolloutEvent> envelope = record.envelope();
      if (run != null) {
        try {
          if (run.apply(envelope)) {
            folded.add(envelope);
          }
          return Optional.empty();
        } catch (IllegalStateException e) {
          return Optional.of(envelope.type() + " contradicts the rollout: " + e.getMessage());
        }
      }
      if (header != null) {
        return chunk(envelope);
      }
      return switch (envelope.data()) {
        case RolloutCreated created -> create(created, envelope.seq(), envelope.epoch(), envelope);
        case RolloutCreatedInChunks first -> {
          header = first;
          chunkSeq = envelope.seq();
          folded.add(envelope);
          yield Optional.empty();
        }
        // Listed, not defaulted: a new event type must say whether it may open a rollout's log.
        case RolloutFailed _,
            RolloutPlanChunk _,
            WaveStarted _,
            NodeStarted _,
            NodeSucceeded _,
            NodeFailed _,
            WaveCompleted _,
            WavePromoted _,
            RolloutPaused _,
            RolloutResumed _,
            RolloutAborted _,
            RollbackStarted _,
            RolloutCompleted _,
            DriverInstallRequested _,
            OsUpgradeRequested _,
            NodeTakenOutOfService _,
            NodeReturnedToService _,
            NodeKeptOutOfService _,
            NodeSkipped _ ->
            Optional.of(
                envelope.type()
                    + " at seq "
                    + envelope.seq()
                    + " comes before the rollout's"
                    + " creation");
      };
    }

    /** The next record of a creation logged in chunks. */
    private Optional<String> chunk(Envelope<RolloutEvent> envelope) {
      if (envelope.seq() <= chunkSeq) {
        return Optional.empty(); // logged again by a leader that took over mid-creation
      }
      if (!(envelope.data() instanceof RolloutPlanChunk chunk)) {
        return Optional.of(
            envelope.type()
                + " at seq "
                + envelope.seq()
                + " comes before the creation's last"
                + " chunk ("
                + chunks.size()
                + " of "
                + header.chunks()
                + " folded)");
      }
      if (chunk.index() != chunks.size()) {
        return Optional.of(
            "plan chunk " + chunk.index() + " where chunk " + chunks.size() + " belongs");
      }
      chunks.add(chunk);
      chunkSeq = envelope.seq();
      folded.add(envelope);
      if (chunks.size() < header.chunks()) {
        return Optional.empty();
      }
      RolloutCreated created;
      try {
        created = RolloutChunks.join(header, chunks);
      } catch (IllegalArgumentException e) {
        return Optional.of("the creation's chunks do not join: " + e.getMessage());
      }
      return create(created, envelope.seq(), envelope.epoch(), null);
    }

    private Optional<String> create(
        RolloutCreated created, long seq, long term, Envelope<RolloutEvent> record) {
      Optional<String> unreadable = planProblem.apply(created);
      if (unreadable.isPresent()) {
        return Optional.of("its plan does not read: " + unreadable.get());
      }
      run = RolloutRun.created(id, created, seq, term);
      if (record != null) {
        folded.add(record);
      }
      return Optional.empty();
    }
  }
}
