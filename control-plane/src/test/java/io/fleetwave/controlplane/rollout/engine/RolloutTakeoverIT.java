package io.fleetwave.controlplane.rollout.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.fixtures.EngineTakeovers;
import io.fleetwave.controlplane.fixtures.LoggedRollouts;
import io.fleetwave.core.rollout.decide.LoggedRecord;
import io.fleetwave.core.rollout.decide.RolloutFold;
import io.fleetwave.core.rollout.plan.LargeFleetPlans;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.rollout.RolloutAborted;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPaused;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Takeover time does not grow with the age of fleet.rollout-events: with N finished rollouts in the
 * log and one live one, an engine taking over reads the live one from where it starts. Asserts that
 * a takeover reads the same records with 10 finished rollouts as with {@code
 * -Dscale.takeover.finished} (100 in the suite: a takeover that read finished rollouts would read
 * ten times more, so a tenfold growth fails it as surely as a hundredfold; {@code 1000} for the
 * figures of docs/reliability.md), and prints the takeover times and their ratio, beside the time
 * of reading and folding the whole topic (what a takeover did before).
 */
@QuarkusTest
class RolloutTakeoverIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final int TAKEOVERS = 5;
  private static final int FEW = 10;
  private static final int MANY = Integer.getInteger("scale.takeover.finished", 100);

  @Inject Pool pool;
  @Inject ObjectMapper json;
  @Inject LoggedRollouts loggedRollouts;
  @Inject RolloutEngines engines;

  @Test
  void takeoverReadsTheSameRecordsWhileFinishedRolloutsGrowTenfoldOrMore() throws Exception {
    assertThat(MANY).as("-Dscale.takeover.finished must be more than %d", FEW).isGreaterThan(FEW);
    RolloutCreated created =
        RolloutBook.creation(
            json,
            "takeover",
            new RolloutProgressStore.Creation(
                json.writeValueAsString(LargeFleetPlans.spec("takeover")),
                json.writeValueAsString(LargeFleetPlans.plan("takeover", 20, 8)),
                "test-admin",
                Instant.EPOCH));
    engines.stopEngine();
    try (RolloutLog log = loggedRollouts.open(BOUND)) {
      Seeder seeder = new Seeder(log, created);
      seeder.finished(FEW);
      UUID live = seeder.live();
      TakeOver few = takeOvers(live);
      Duration fullFew = fullRead(log);

      seeder.end(live);
      seeder.finished(MANY - FEW);
      live = seeder.live();
      TakeOver many = takeOvers(live);
      Duration fullMany = fullRead(log);
      seeder.end(live);

      double ratio = (double) many.median().toNanos() / few.median().toNanos();
      System.out.printf(
          "takeover with %d finished rollouts + 1 live: %d ms, %d records read; with %,d + 1:"
              + " %d ms, %d records read; time ratio %.2f (reading and folding the whole topic:"
              + " %d ms and %d ms, ratio %.2f)%n",
          FEW,
          few.median().toMillis(),
          few.records(),
          MANY,
          many.median().toMillis(),
          many.records(),
          ratio,
          fullFew.toMillis(),
          fullMany.toMillis(),
          (double) fullMany.toNanos() / fullFew.toNanos());
      // What a takeover reads does not depend on the finished rollouts: the live ones' records.
      assertThat(many.records())
          .as("records a takeover reads with %d finished rollouts vs with %d", MANY, FEW)
          .isEqualTo(few.records());
    } finally {
      EngineTakeovers.startNew(engines);
    }
  }

  /** A takeover: its median time of several, each by a new engine, and the records it read. */
  private record TakeOver(Duration median, long records) {}

  /** Takes over several times, each by a new engine, a topic where {@code live} runs. */
  private TakeOver takeOvers(UUID live) {
    List<Duration> times = new ArrayList<>();
    long records = 0;
    for (int i = 0; i < TAKEOVERS; i++) {
      RolloutEngine engine = engines.create(EngineFaults.NONE);
      try {
        engine.start();
        await("a new engine takes over").atMost(BOUND).until(() -> engine.lastTakeOver() != null);
        times.add(engine.lastTakeOver());
        records = engine.lastTakeOverRecords();
      } finally {
        engine.close();
      }
    }
    assertThat(state(live)).as("the live rollout is taken over as it was").isEqualTo("paused");
    return new TakeOver(times.stream().sorted().toList().get(TAKEOVERS / 2), records);
  }

  /** Reading and folding every rollout of the topic from offset 0. */
  private static Duration fullRead(RolloutLog log) {
    long started = System.nanoTime();
    for (Map.Entry<UUID, List<LoggedRecord>> entry : log.readAll().entrySet()) {
      RolloutFold.fold(entry.getKey(), entry.getValue(), plan -> java.util.Optional.empty());
    }
    return Duration.ofNanos(System.nanoTime() - started);
  }

  private String state(UUID rollout) {
    return pool.preparedQuery("SELECT state FROM rollouts WHERE id = $1")
        .execute(io.vertx.mutiny.sqlclient.Tuple.of(rollout))
        .await()
        .atMost(BOUND)
        .iterator()
        .next()
        .getString("state");
  }

  /** Appends rollouts to the log and projects them as the engine would have. */
  private final class Seeder {
    private final RolloutLog log;
    private final RolloutCreated created;
    private final RolloutRebuild projection;

    Seeder(RolloutLog log, RolloutCreated created) {
      this.log = log;
      this.created = created;
      this.projection = loggedRollouts.rebuild(BOUND);
    }

    /** {@code count} rollouts created and aborted. */
    void finished(int count) {
      Map<UUID, List<RolloutEvent>> rollouts = new LinkedHashMap<>();
      for (int i = 0; i < count; i++) {
        rollouts.put(
            UUID.randomUUID(), List.of(created, new RolloutAborted("seeded", "test-admin")));
      }
      append(rollouts);
    }

    /** One rollout created and paused: live, and the engine starts nothing of it. */
    UUID live() {
      UUID id = UUID.randomUUID();
      append(Map.of(id, List.of(created, new RolloutPaused("seeded", "test-admin"))));
      return id;
    }

    void end(UUID live) {
      List<Envelope<RolloutEvent>> aborted =
          RolloutLog.envelopes(
              live, 0, 2, List.of(new RolloutAborted("measured", "test-admin")), Instant.now());
      Map<UUID, List<LoggedRecord>> logged = new LinkedHashMap<>();
      logged.put(live, records(aborted, log.append(aborted)));
      logged.get(live).addAll(0, previous.get(live));
      projection.rebuild(logged, "public");
    }

    private final Map<UUID, List<LoggedRecord>> previous = new LinkedHashMap<>();

    private void append(Map<UUID, List<RolloutEvent>> rollouts) {
      List<Envelope<RolloutEvent>> envelopes = new ArrayList<>();
      rollouts.forEach(
          (id, events) -> envelopes.addAll(RolloutLog.envelopes(id, 0, 0, events, Instant.now())));
      List<RolloutLog.Position> positions = log.append(envelopes);
      List<LoggedRecord> records = records(envelopes, positions);
      Map<UUID, List<LoggedRecord>> logged = new LinkedHashMap<>();
      for (LoggedRecord record : records) {
        logged
            .computeIfAbsent(UUID.fromString(record.envelope().subject()), k -> new ArrayList<>())
            .add(record);
      }
      previous.putAll(logged);
      projection.rebuild(logged, "public");
    }

    private static List<LoggedRecord> records(
        List<Envelope<RolloutEvent>> envelopes, List<RolloutLog.Position> positions) {
      List<LoggedRecord> out = new ArrayList<>();
      for (int i = 0; i < envelopes.size(); i++) {
        out.add(
            LoggedRecord.decoded(
                Topics.ROLLOUT_EVENTS,
                positions.get(i).partition(),
                positions.get(i).offset(),
                0,
                envelopes.get(i)));
      }
      return out;
    }
  }
}
