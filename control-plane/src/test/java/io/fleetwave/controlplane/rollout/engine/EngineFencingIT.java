package io.fleetwave.controlplane.rollout.engine;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.config.RolloutConfig;
import io.fleetwave.controlplane.fixtures.AppDatabase;
import io.fleetwave.controlplane.fixtures.CanaryRollouts;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.FleetNodes.Node;
import io.fleetwave.controlplane.fixtures.LoggedRollouts;
import io.fleetwave.core.rollout.decide.RolloutFold;
import io.fleetwave.core.rollout.decide.RunStatus;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutAborted;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.RolloutResumed;
import io.fleetwave.testsupport.network.BlackHoleProxy;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgBuilder;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * Leadership is fenced (issue 11 item 5), against the real PostgreSQL and Kafka: engine A leads
 * through a TCP proxy to PostgreSQL; the proxy then drops everything without closing a socket (a
 * black-holed connection, which TCP alone notices after minutes). Engine B, on the application's
 * pool, leads within the lease and a poll, and A stopped acting before B started. Appends made with
 * A's stale term (forced: one landing before B's first append on the rollout, one after it) are
 * ignored by the fold B and every later reader use, and by the rebuild, which equals the live rows.
 */
@QuarkusTest
class EngineFencingIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final Map<String, String> LABELS = Map.of("suite", "fencing");
  private static final List<Node> FLEET =
      List.of(
          Node.ubuntuH100("fe-ubu-1", "z1", 2, LABELS),
          Node.ubuntuH100("fe-ubu-2", "z1", 2, LABELS));

  @Inject RolloutEngines engines;
  @Inject RolloutConfig config;
  @Inject Vertx vertx;
  @Inject LoggedRollouts rollouts;

  @Test
  void aBlackHoledLeaderIsReplacedWithinTheLeaseAndItsStaleTermIsIgnored() {
    FleetNodes.publishAndAwait(FLEET);
    Duration lease = config.engine().lease();
    PgConnectOptions direct = AppDatabase.options();
    engines.stopEngine();
    RolloutEngine b = null;
    BlackHoleProxy proxy = BlackHoleProxy.to(direct.getHost(), direct.getPort());
    try {
      Pool throughProxy =
          PgBuilder.pool()
              .connectingTo(AppDatabase.at(proxy.port()))
              .with(new PoolOptions().setMaxSize(4))
              .using(vertx)
              .build();
      RolloutEngine a = engines.create(EngineFaults.NONE, throughProxy);
      try {
        a.start();
        await("engine A (through the proxy) leads").atMost(BOUND).until(a::leading);
        long termA = a.term();
        String id = createRollout();
        b = engines.create(EngineFaults.NONE);
        b.start();
        assertThat(b.leading()).as("B leads while A holds the lease").isFalse();

        proxy.blackHole();
        Instant cut = Instant.now();
        Duration aStopped = null;
        Duration bLeads = null;
        Instant deadline = cut.plus(BOUND);
        while (bLeads == null && Instant.now().isBefore(deadline)) {
          Duration since = Duration.between(cut, Instant.now());
          if (aStopped == null && !a.leading()) {
            aStopped = since;
          }
          if (b.leading()) {
            bLeads = since;
          }
          pause(Duration.ofMillis(20));
        }
        assertThat(bLeads).as("B leads within %s of the cut", BOUND).isNotNull();
        long termB = b.term();
        System.out.printf(
            "Black-holed leader: engine A (term %d) stopped acting after %.1f s; engine B leads"
                + " in term %d after %.1f s (lease %.1f s, bound %.1f s + the takeover)%n",
            termA,
            aStopped == null ? Double.NaN : aStopped.toMillis() / 1000.0,
            termB,
            bLeads.toMillis() / 1000.0,
            lease.toMillis() / 1000.0,
            lease.plus(lease.dividedBy(4)).toMillis() / 1000.0);
        assertThat(aStopped).as("A stopped acting before B led").isNotNull();
        assertThat(aStopped).isLessThan(bLeads);
        // The bound, plus the takeover's fold of the log (under a second here; 5 s on a busy host).
        assertThat(bLeads).isLessThan(lease.plus(lease.dividedBy(4)).plusSeconds(5));
        assertThat(termB).isGreaterThan(termA);

        UUID rollout = UUID.fromString(id);
        try (RolloutLog log = rollouts.open(BOUND)) {
          long seq = fold(log, rollout).run().seq();
          // A's append in flight when it stopped, landing before B's first append here ...
          Envelope<RolloutEvent> beforeB = stale(rollout, termA, seq + 1);
          log.append(List.of(beforeB));
          given().queryParam("reason", "fenced").post(action(id, "pause")).then().statusCode(200);
          // ... and one landing after it.
          Envelope<RolloutEvent> afterB = stale(rollout, termA, seq + 2);
          log.append(List.of(afterB));
          given().post(action(id, "resume")).then().statusCode(200);

          RolloutFold.Folded folded = fold(log, rollout);

          assertThat(folded.run().status()).isEqualTo(RunStatus.RUNNING);
          assertThat(folded.ignored())
              .extracting(i -> i.envelope().id(), RolloutFold.Ignored::reason)
              .containsExactlyInAnyOrder(
                  tuple(
                      beforeB.id(),
                      "superseded by term " + termB + ", whose leader continued from seq " + seq),
                  tuple(
                      afterB.id(),
                      "term " + termA + " is below term " + termB + " already in the log"));
          Envelope<RolloutEvent> pause = folded.folded().get(folded.folded().size() - 2);
          Envelope<RolloutEvent> resume = folded.folded().getLast();
          assertThat(pause.data()).isInstanceOf(RolloutPaused.class);
          assertThat(resume.data()).isInstanceOf(RolloutResumed.class);
          assertThat(List.of(pause.epoch(), resume.epoch())).containsOnly(termB);
          assertThat(List.of(pause.seq(), resume.seq())).containsExactly(seq + 1, seq + 2);
        }
        assertThat(rollouts.rebuiltDifferences("engine_fencing_it", BOUND)).isEmpty();
        given()
            .get("/api/v1/rollouts/" + id)
            .then()
            .statusCode(200)
            .body("state", Matchers.equalTo("running"));
        given().post(action(id, "abort")).then().statusCode(200);
      } finally {
        proxy.close();
        a.close();
        throughProxy.closeAndForget();
      }
    } finally {
      // The application keeps an engine for the other tests: B, or a new one.
      if (b == null) {
        b = engines.create(EngineFaults.NONE);
        b.start();
      }
      engines.adopt(b);
    }
  }

  private static RolloutFold.Folded fold(RolloutLog log, UUID rollout) {
    return RolloutFold.fold(rollout, log.readAll().get(rollout), plan -> Optional.empty());
  }

  private static Envelope<RolloutEvent> stale(UUID rollout, long term, long seq) {
    return RolloutLog.envelopes(
            rollout,
            term,
            seq - 1,
            List.of(new RolloutAborted("appended by a leader that lost its lease", "system")),
            Instant.now())
        .getFirst();
  }

  private static String action(String id, String action) {
    return "/api/v1/rollouts/" + id + "/" + action;
  }

  /** A rollout engine A takes up and starts the canary of: its id. */
  private static String createRollout() {
    return CanaryRollouts.startCanary("fence-me", "suite=fencing", BOUND);
  }

  /** The poll interval of the measurement loop above, which ends on the condition or its bound. */
  private static void pause(Duration interval) {
    try {
      Thread.sleep(interval);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while measuring the takeover", e);
    }
  }
}
