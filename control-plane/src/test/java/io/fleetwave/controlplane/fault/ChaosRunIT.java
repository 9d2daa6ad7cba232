package io.fleetwave.controlplane.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.RolloutApi;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.events.Topics;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.SimulatedNode;
import io.fleetwave.simulator.fleet.FleetFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Issue 11's chaos run: a rollout over a simulated fleet ({@code -Dfault.chaos.nodes}, 1,000) while
 * a random fault strikes every few seconds ({@code -Dfault.chaos.faultSeconds}, 8, ±50%; seed
 * {@code -Dfault.chaos.seed}): the broker stopped and restarted, PostgreSQL stopped and restarted,
 * the control plane SIGKILLed and started again, agents of nodes not in flight crashed and
 * restarted (a new epoch). The rollout must finish with every node started once and none skipped,
 * every node's history without a seq gap in any epoch, every event the agents' producer
 * acknowledged projected, and the rebuild (node tables and the rollout tables folded from
 * fleet.rollout-events with the engine's code) equal to the live projection. Prints the faults
 * injected, the events lost and the longest stall of the rollout.
 *
 * <p>Minutes long, so not part of the default run: {@code ./mvnw -B verify -pl control-plane -am
 * -Dtest=none -Dit.test=ChaosRunIT -Dfault.chaos=true -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class ChaosRunIT {
  private static final Path APP = Path.of("target", "quarkus-app");
  private static final int NODES = Integer.getInteger("fault.chaos.nodes", 1000);
  private static final Duration FAULT_EVERY =
      Duration.ofSeconds(Long.getLong("fault.chaos.faultSeconds", 8));
  private static final long SEED = Long.getLong("fault.chaos.seed", System.nanoTime());
  private static final Duration RUN_BOUND = Duration.ofMinutes(25);
  private static final Duration SETTLE_BOUND = Duration.ofMinutes(3);
  // Agents wait for a broker or a control plane that is away rather than drop events.
  private static final Duration RIDE_OUT = Duration.ofMinutes(5);

  private static final String ROLLOUT =
      """
      {"name": "chaos", "target": {"selector": "pool=chaos"},
       "change": {"migConfig": "all-1g.10gb"},
       "strategy": {"waves": ["1%", "10%", "100%"], "maxUnavailable": "5%", "soakSeconds": 0,
                    "failureThreshold": {"perWave": "0", "total": "0", "action": "pause"},
                    "manualPromotion": false, "nodeTimeoutSeconds": 900}}
      """;

  private enum Fault {
    BROKER,
    POSTGRES,
    CONTROL_PLANE,
    AGENTS
  }

  @Test
  @SuppressWarnings("try") // the agents are closed before the rebuild, and again (a no-op) after
  void aRolloutFinishesThroughRandomFaultsLosingNothing() throws Exception {
    assumeTrue(Boolean.getBoolean("fault.chaos"), "the chaos run needs -Dfault.chaos=true");
    Path work = Files.createDirectories(Path.of("target", "chaos-run-it").toAbsolutePath());
    CommandSigner signer = CommandSigner.generate();
    Random random = new Random(SEED);
    Map<Fault, Integer> injected = new TreeMap<>();
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedPostgres postgres = EmbeddedPostgres.start()) {
      FleetTopics.create(kafka);
      NodeHistories histories = new NodeHistories(postgres);
      Map<String, String> env = environment(kafka, postgres, signer);
      int restarts = 0;
      ControlPlaneProcess controlPlane =
          ControlPlaneProcess.start(
              APP, Replicas.freePort(), env, work.resolve("control-plane-0.log"), "2g");
      try (SimulatedFleet agents =
          SimulatedFleet.start(
              FleetFile.parse(fleetYaml(), "chaos-fleet.yaml"),
              new SimulatedFleet.Settings(
                      kafka.bootstrapServers(),
                      Duration.ofSeconds(10),
                      Topics.NODE_EVENTS,
                      4,
                      Duration.ofSeconds(60),
                      RIDE_OUT)
                  .withDeliveryTimeout(RIDE_OUT),
              SpecFollowing.of(signer.verifier()).withApplyDelay(Duration.ofSeconds(2)),
              null)) {
        await("the fleet projected")
            .atMost(SETTLE_BOUND)
            .until(
                () ->
                    histories.count(
                            "SELECT count(DISTINCT node) FROM gpus WHERE node LIKE 'chaos-%'")
                        == NODES);
        String id =
            new RolloutApi(controlPlane.port, controlPlane.token("operator"))
                .create(ROLLOUT)
                .get("id")
                .asText();
        Instant started = Instant.now();
        Instant lastProgress = started;
        Duration longestStall = Duration.ZERO;
        long seen = 0;
        Instant nextFault = started.plus(jittered(random));
        String state = "running";
        while (!state.equals("completed")) {
          assertThat(Duration.between(started, Instant.now()))
              .as("rollout %s finished within the bound (state %s)", id, state)
              .isLessThan(RUN_BOUND);
          assertThat(state).as("rollout %s never pauses or aborts", id).isIn("created", "running");
          long events = rolloutEvents(postgres, id);
          if (events > seen) {
            longestStall = max(longestStall, Duration.between(lastProgress, Instant.now()));
            lastProgress = Instant.now();
            seen = events;
          }
          if (Instant.now().isAfter(nextFault)) {
            Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
            injected.merge(fault, 1, Integer::sum);
            Duration away = Duration.ofSeconds(3 + random.nextInt(10));
            System.out.printf(
                "chaos: %s (%s away) at %.0f s, %d rollout events%n",
                fault, away, Duration.between(started, Instant.now()).toSeconds() * 1.0, seen);
            switch (fault) {
              case BROKER -> {
                kafka.stopBroker();
                Thread.sleep(away); // the fault's length
                kafka.restartBroker();
              }
              case POSTGRES -> {
                postgres.stop();
                Thread.sleep(away); // the fault's length
                postgres.restart();
              }
              case CONTROL_PLANE -> {
                controlPlane.kill();
                controlPlane =
                    ControlPlaneProcess.start(
                        APP,
                        Replicas.freePort(),
                        env,
                        work.resolve("control-plane-" + ++restarts + ".log"),
                        "2g");
              }
              case AGENTS -> restartAgentsNotInFlight(agents, postgres, id, random);
            }
            nextFault = Instant.now().plus(jittered(random));
          }
          Thread.sleep(500); // the run's sampling interval
          state = rolloutState(postgres, id);
        }
        longestStall = max(longestStall, Duration.between(lastProgress, Instant.now()));
        Duration took = Duration.between(started, Instant.now());

        RolloutApi rollouts = new RolloutApi(controlPlane.port, controlPlane.token("operator"));
        List<JsonNode> events = rollouts.events(id);
        Files.writeString(work.resolve("rollout-events.json"), events.toString());
        RolloutChecks.assertCompletedEachNodeOnce(
            events, RolloutChecks.plannedWaves(rollouts.get("/" + id)), NODES);

        agents.close();
        long acknowledged = agents.publisher().acknowledged();
        long lost = agents.publisher().failed();
        NodeHistories.OnTopic onTopic = NodeHistories.onTopic(kafka.bootstrapServers(), "chaos-");
        assertThat(onTopic.events())
            .as("distinct events of the agents on the topic")
            .isEqualTo(acknowledged);
        await("every agent event on the topic projected")
            .atMost(SETTLE_BOUND)
            .until(() -> histories.positions("chaos-").equals(onTopic.newest()));
        assertThat(histories.seqGaps("chaos-")).as("per-node seq gaps").isEmpty();
        FaultApi api =
            new FaultApi(
                controlPlane.port, controlPlane.managementPort, controlPlane.token("admin"));
        JsonNode rebuild = api.rebuild();
        assertThat(rebuild.path("equal").asBoolean()).as("rebuild: %s", rebuild).isTrue();
        System.out.printf(
            "Chaos run (seed %d): %d nodes, rollout completed in %.0f s%n"
                + "  faults injected: %s (a fault every %d s ±50%%)%n"
                + "  events acknowledged by the agents: %d, dropped by them: %d, projected: all,"
                + " seq gaps: 0%n"
                + "  longest stall of the rollout (no new rollout event): %.1f s%n"
                + "  every node started once, none skipped; rebuild (nodes and rollouts) equal: %s%n",
            SEED,
            NODES,
            took.toMillis() / 1000.0,
            injected,
            FAULT_EVERY.toSeconds(),
            acknowledged,
            lost,
            longestStall.toMillis() / 1000.0,
            rebuild.path("equal").asBoolean());
      } finally {
        controlPlane.close();
      }
    }
  }

  /**
   * Crashes and restarts the agents of a few nodes the rollout is done with (an agent that dies
   * while it converges is the spool's and the agent's concern, not this run's).
   */
  private static void restartAgentsNotInFlight(
      SimulatedFleet agents, EmbeddedPostgres postgres, String id, Random random) {
    Set<String> done = succeeded(postgres, id);
    List<SimulatedNode> candidates =
        agents.nodes().stream().filter(n -> done.contains(n.name())).collect(Collectors.toList());
    for (int i = 0; i < 5 && !candidates.isEmpty(); i++) {
      SimulatedNode node = candidates.remove(random.nextInt(candidates.size()));
      node.crash();
      node.restart();
    }
  }

  private static Duration jittered(Random random) {
    long millis = FAULT_EVERY.toMillis();
    return Duration.ofMillis(millis / 2 + (long) (random.nextDouble() * millis));
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static long rolloutEvents(EmbeddedPostgres postgres, String id) {
    try {
      return new NodeHistories(postgres)
          .count("SELECT count(*) FROM rollout_event_log WHERE rollout = '" + id + "'");
    } catch (java.sql.SQLException away) {
      return 0; // PostgreSQL is one of the faults
    }
  }

  private static String rolloutState(EmbeddedPostgres postgres, String id) {
    try (var connection =
            java.sql.DriverManager.getConnection(
                postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
        var rows =
            connection
                .createStatement()
                .executeQuery("SELECT state FROM rollouts WHERE id = '" + id + "'")) {
      return rows.next() ? rows.getString(1) : "running";
    } catch (java.sql.SQLException away) {
      return "running"; // PostgreSQL is one of the faults: read again next time
    }
  }

  private static Set<String> succeeded(EmbeddedPostgres postgres, String id) {
    Set<String> nodes = new java.util.HashSet<>();
    try (var connection =
            java.sql.DriverManager.getConnection(
                postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
        var rows =
            connection
                .createStatement()
                .executeQuery(
                    "SELECT node FROM rollout_node_states WHERE rollout = '"
                        + id
                        + "' AND state = 'succeeded'")) {
      while (rows.next()) {
        nodes.add(rows.getString(1));
      }
    } catch (java.sql.SQLException away) {
      return Set.of(); // PostgreSQL is one of the faults: restart no agent this time
    }
    return nodes;
  }

  private static String fleetYaml() {
    List<String> groups = new ArrayList<>();
    groups.add("nodes:");
    groups.add(
        """
          - name-prefix: chaos-h100
            count: %d
            host: ubuntu
            labels: {pool: chaos}
            driver-version: "580.95.05"
            gpus:
              - model: "0x233010DE"
                count: 1
        """
            .formatted(NODES));
    return String.join("\n", groups);
  }

  private static Map<String, String> environment(
      EmbeddedKafka kafka, EmbeddedPostgres postgres, CommandSigner signer) {
    return Map.of(
        "KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers(),
        "QUARKUS_DATASOURCE_REACTIVE_URL", postgres.reactiveUrl(),
        "QUARKUS_DATASOURCE_JDBC_URL", postgres.jdbcUrl(),
        "QUARKUS_DATASOURCE_USERNAME", EmbeddedPostgres.USER,
        "QUARKUS_DATASOURCE_PASSWORD", EmbeddedPostgres.PASSWORD,
        "FLEETWAVE_COMMANDS_PRIVATE_KEY", signer.privateKeyPem(),
        "FLEETWAVE_NODE_IDENTITY_ENROLMENTS_PER_SOURCE", SystemTierIT.ONE_ADDRESS_FLEET);
  }
}
