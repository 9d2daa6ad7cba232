package io.fleetwave.cli;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.simulator.FleetEnrolment;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.SimulatedGpuBackend;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.testsupport.services.KafkaExtension;
import io.fleetwave.testsupport.services.PostgresExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * fleetctl against the real API: the packaged control plane ({@code
 * control-plane/target/quarkus-app}) as a child process signing specs with this test's key, a
 * seven-node simulated fleet in this JVM (every node enrolled with its join token, signing its
 * events and following its signed spec, as agents do), embedded Kafka and PostgreSQL in this JVM;
 * fleetctl runs in-process with its output captured. Not the packaged demo: this module then waited
 * for the demo module's whole build and tests, at the end of the suite.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith({KafkaExtension.class, PostgresExtension.class})
class FleetctlIT {
  private static final Path APP = Path.of("..", "control-plane", "target", "quarkus-app");
  private static final Path RESOURCES = Path.of("src", "test", "resources");

  private static KafkaBroker kafka;
  private static EmbeddedPostgres postgres;
  private static ControlPlaneProcess controlPlane;
  private static SimulatedFleet fleet;
  private static String server;
  private static String token;

  @BeforeAll
  static void startTheControlPlaneAndTheFleet() throws Exception {
    Path work = Files.createDirectories(Path.of("target", "fleetctl-it").toAbsolutePath());
    FleetTopics.create(kafka);
    CommandSigner signer = CommandSigner.generate();
    controlPlane =
        ControlPlaneProcess.start(
            APP,
            0,
            ControlPlaneProcess.settings(
                kafka, postgres, Map.of("FLEETWAVE_COMMANDS_PRIVATE_KEY", signer.privateKeyPem())),
            work.resolve("control-plane.log"));
    server = "http://localhost:" + controlPlane.port();
    token = controlPlane.token("admin");
    fleet =
        SimulatedFleet.start(
            FleetFile.read(RESOURCES.resolve("cli-fleet.yaml")),
            SimulatedFleet.Settings.of(kafka.bootstrapServers(), Duration.ofSeconds(2)),
            SpecFollowing.of(signer.verifier()).withApplyDelay(Duration.ofMillis(500)),
            null,
            FleetEnrolment.of(controlPlane.url(), controlPlane::joinToken));
    awaitFleetctl(
            "the seven simulated nodes are projected with their GPUs and driver (via fleetctl)",
            Duration.ofSeconds(90))
        .until(
            () -> {
              Run run = fleetctl("nodes", "list", "-o", "json");
              if (run.exit() != 0) {
                return false;
              }
              JsonNode nodes = Fleetctl.JSON.readTree(run.out());
              int ready = 0;
              for (JsonNode node : nodes) {
                ready += node.path("gpus").size() > 0 && node.hasNonNull("driverVersion") ? 1 : 0;
              }
              return ready == 7;
            });
  }

  @AfterAll
  static void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
    if (controlPlane != null) {
      controlPlane.close();
    }
  }

  private static Run fleetctl(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--server");
    all.add(server);
    // Through the environment, as a script would: FLEETWAVE_TOKEN (admin: MIG configs included).
    return Run.of(Map.of("FLEETWAVE_TOKEN", token), all.toArray(String[]::new));
  }

  /** Waits at most {@code atMost} for {@code what}, asking fleetctl again every 300 ms. */
  private static ConditionFactory awaitFleetctl(String what, Duration atMost) {
    return await(what).atMost(atMost).pollInterval(Duration.ofMillis(300));
  }

  private static String ok(Run run) {
    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.err()).as(run.toString()).isEmpty();
    return run.out();
  }

  @Test
  @Order(1)
  void nodesListShowsTheFleetAndFilters() {
    String all = ok(fleetctl("nodes", "list"));
    assertThat(all.lines().findFirst().orElseThrow())
        .startsWith("NAME")
        .contains("HOST-KIND", "ZONE", "DRIVER", "GPUS", "MIG", "CONVERGED");
    assertThat(all.lines().skip(1)).hasSize(7);
    assertThat(all).contains("cli-a-h100-", "580.95.05", "1x NVIDIA H100");

    String cli = ok(fleetctl("nodes", "list", "--selector", "pool=cli"));
    assertThat(cli.lines().skip(1))
        .hasSize(4)
        .allMatch(l -> l.startsWith("cli-") && !l.contains("l4"));

    String cos = ok(fleetctl("nodes", "list", "--host-kind", "cos", "-o", "yaml"));
    assertThat(cos).contains("name: cli-cos-l4-").contains("hostKind: cos").doesNotContain("h100");
  }

  @Test
  @Order(2)
  void nodesGetShowsFactsWithReasonsAndGpus() throws Exception {
    String name = firstNode("pool=cli");
    String text = ok(fleetctl("nodes", "get", name));
    assertThat(text).contains("hostKind", "ubuntu", "zone-a", "labels", "pool=cli");
    assertThat(text).contains("GPU", "PRODUCT", "NVIDIA H100");
    JsonNode json = Fleetctl.JSON.readTree(ok(fleetctl("nodes", "get", name, "-o", "json")));
    assertThat(json.path("name").asText()).isEqualTo(name);
  }

  @Test
  @Order(3)
  void anUnknownNodeIsA404LineAndExit1() {
    Run run = fleetctl("nodes", "get", "no-such-node");
    assertThat(run.exit()).as(run.toString()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err()).startsWith("error: 404 ").contains("no-such-node");
  }

  @Test
  @Order(20)
  void auditListsChangesWithActorAndOutcomeAndFilters() throws Exception {
    String since = Instant.now().minusMillis(1).toString();
    String rollout = UUID.randomUUID().toString();
    Run refused = fleetctl("rollout", "pause", rollout);
    assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);

    JsonNode entries =
        Fleetctl.JSON.readTree(
            ok(fleetctl("audit", "--actor", "test-admin", "--since", since, "-o", "json")));
    assertThat(entries)
        .anySatisfy(
            entry -> {
              assertThat(entry.path("actor").asText()).isEqualTo("test-admin");
              assertThat(entry.path("action").asText())
                  .isEqualTo("POST /api/v1/rollouts/{id}/{action}");
              assertThat(entry.path("target").asText())
                  .isEqualTo("/api/v1/rollouts/" + rollout + "/pause");
              assertThat(entry.path("status").asInt()).isEqualTo(404);
              assertThat(entry.path("outcome").asText()).startsWith("refused (404)");
            });
    assertThat(ok(fleetctl("audit", "--since", since)))
        .contains("ACTOR", "OUTCOME", "test-admin", "/api/v1/rollouts/" + rollout + "/pause");
    assertThat(Fleetctl.JSON.readTree(ok(fleetctl("audit", "--actor", "nobody", "-o", "json"))))
        .isEmpty();
  }

  @Test
  @Order(21)
  void withoutATokenTheApiRefusesAndSaysWhatIsMissing() {
    Run run = Run.of(Map.of(), "nodes", "list", "--server", server); // no token at all
    assertThat(run.exit()).as(run.toString()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("error: 401 ")
        .contains("bearer token")
        .contains("check --token or FLEETWAVE_TOKEN");
  }

  @Test
  @Order(4)
  void migConfigsImportAndList() {
    String imported =
        ok(
            fleetctl(
                "mig-configs",
                "import",
                "-f",
                RESOURCES.resolve("cli-mig-parted.yaml").toString()));
    assertThat(imported).contains("imported: cli-all-7g");
    String list = ok(fleetctl("mig-configs", "list"));
    assertThat(list)
        .startsWith("NAME")
        .contains("cli-all-7g", "cli-mig-parted.yaml", "all-1g.10gb");
  }

  @Test
  @Order(5)
  void specPutPublishesAGenerationAndSpecGetShowsIt() throws Exception {
    String name = firstNode("pool=spec");
    String put =
        ok(fleetctl("spec", "put", name, "-f", RESOURCES.resolve("cli-spec.yaml").toString()));
    assertThat(put).isEqualTo("spec of node " + name + " published as generation 1\n");
    String text = ok(fleetctl("spec", "get", name));
    assertThat(text).startsWith("node " + name + ": converged").contains("desired:", "3g.40gb");
    JsonNode json = Fleetctl.JSON.readTree(ok(fleetctl("spec", "get", name, "-o", "json")));
    assertThat(json.at("/desired/generation").asLong()).as("%s", json).isEqualTo(1);

    // A spec the node's GPU cannot take: the 422 line, then one line per field error.
    Run invalid =
        fleetctl("spec", "put", name, "-f", RESOURCES.resolve("cli-spec-invalid.yaml").toString());
    assertThat(invalid.exit()).as(invalid.toString()).isEqualTo(1);
    assertThat(invalid.err()).startsWith("error: 422 ");
    assertThat(invalid.err().lines().skip(1))
        .isNotEmpty()
        .allMatch(l -> l.startsWith("  gpus[0]"), "an indented field error of gpus[0]");
  }

  @Test
  @Order(6)
  void planCreatePauseResumeAndWatchAMigRolloutToCompletion() throws Exception {
    String file = RESOURCES.resolve("cli-rollout.yaml").toString();
    String plan = ok(fleetctl("rollout", "plan", "-f", file));
    assertThat(plan).startsWith("plan cli-mig: 4 node(s) in 2 wave(s), change mig all-1g.10gb");
    assertThat(plan)
        .contains(
            "WAVE",
            "BATCH",
            "NODE",
            "ACTIONS",
            "1 canary   1      1       1",
            "2          100%   3       4");
    assertThat(plan).contains("-> 1g.10gb x7");
    assertThat(plan.lines().filter(l -> l.contains("cli-") && l.contains("h100"))).hasSize(4);

    String created = ok(fleetctl("rollout", "create", "-f", file));
    assertThat(created)
        .startsWith("rollout ")
        .contains(" created: cli-mig, 4 node(s) in 2 wave(s)");
    String id = created.split(" ", -1)[1];

    String paused = ok(fleetctl("rollout", "pause", id, "--reason", "checking the canary"));
    assertThat(paused).startsWith("pause: rollout cli-mig paused");
    assertThat(ok(fleetctl("rollout", "status", id))).contains("state:   paused");
    String listed = ok(fleetctl("rollout", "list"));
    assertThat(listed).contains(id, "cli-mig", "paused", "mig all-1g.10gb");
    assertThat(ok(fleetctl("rollout", "list", "--state", "running,paused"))).contains(id);
    assertThat(ok(fleetctl("rollout", "list", "--state", "completed"))).doesNotContain(id);
    Run badState = fleetctl("rollout", "list", "--state", "sleeping");
    assertThat(badState.exit()).as(badState.toString()).isEqualTo(1);
    assertThat(badState.err()).startsWith("error: 400 ").contains("'sleeping'", "running, paused");
    JsonNode secondWave =
        Fleetctl.JSON.readTree(ok(fleetctl("rollout", "nodes", id, "--wave", "2", "-o", "json")));
    assertThat(secondWave).hasSize(3);
    assertThat(secondWave.findValuesAsText("wave")).containsOnly("2");

    String resumed = ok(fleetctl("rollout", "resume", id, "--reason", "canary fine"));
    assertThat(resumed).startsWith("resume: rollout cli-mig ");

    Run watch =
        fleetctl("rollout", "status", id, "--watch", "--interval", "200", "--timeout", "60");
    assertThat(watch.exit()).as(watch.toString()).isZero();
    assertThat(watch.out())
        .contains("wave 1/2 [####################] 1/1", "wave 2/2 [####################] 3/3")
        .endsWith("rollout cli-mig (" + id + ") completed: 4 succeeded, 0 failed\n");
    String succeeded = ok(fleetctl("rollout", "nodes", id, "--state", "succeeded"));
    assertThat(succeeded.lines().filter(l -> l.contains(" succeeded "))).hasSize(4);
    assertThat(ok(fleetctl("rollout", "nodes", id, "--state", "failed")).lines()).hasSize(1);

    // A finished rollout cannot be aborted: the API's 409 as one line, exit 1.
    Run abort = fleetctl("rollout", "abort", id, "--reason", "too late");
    assertThat(abort.exit()).as(abort.toString()).isEqualTo(1);
    assertThat(abort.err()).startsWith("error: 409 ");
    assertThat(abort.err().lines()).hasSize(1);
  }

  @Test
  @Order(7)
  void anUnreachableServerIsNamedAndExits1() throws IOException {
    int port = freePort();
    Run run = Run.of("nodes", "list", "--server", "http://127.0.0.1:" + port);
    assertThat(run.exit()).as(run.toString()).isEqualTo(1);
    assertThat(run.err())
        .contains(
            "cannot reach the Fleetwave API at http://127.0.0.1:" + port, "connection refused");
  }

  /**
   * Changes made behind Fleetwave's back on the simulated GPUs, as a person with nvidia-smi (or a
   * failing GPU) makes them: MIG turned on by hand on the drift node shows in fleetctl drift as
   * changed outside, from what to what, within a heartbeat or two; fleetctl changes shows it with
   * cause outside; a GPU's health changed by hand (no desired state, so no drift) shows in changes
   * only.
   */
  @Test
  @Order(8)
  void driftAndChangesShowChangesNobodyAskedFor() throws Exception {
    String name = firstNode("pool=drift");
    assertThat(ok(fleetctl("drift", "--cause", "changed-outside"))).doesNotContain(name);
    gpus(name).setMigModeByHand(0, true);

    String drift =
        awaitFleetctl(
                "fleetctl drift lists " + name + " as changed outside", Duration.ofSeconds(10))
            .until(
                () -> ok(fleetctl("drift", "--cause", "changed-outside")), t -> t.contains(name));
    assertThat(drift.lines().findFirst().orElseThrow())
        .startsWith("NODE")
        .contains("CAUSE", "SINCE", "DETAIL");
    assertThat(drift.lines().filter(l -> l.startsWith(name)))
        .singleElement(as(InstanceOfAssertFactories.STRING))
        .contains("changed-outside", "gpu0 mig-mode: disabled -> enabled");

    String changes = ok(fleetctl("changes", "--node", name));
    assertThat(changes.lines().findFirst().orElseThrow())
        .contains("TIME", "NODE", "CHANGE", "FROM", "TO", "CAUSE", "ASKED-BY");
    assertThat(changes.lines().filter(l -> l.contains("gpu0 mig-mode")))
        .singleElement(as(InstanceOfAssertFactories.STRING))
        .contains(name, "disabled", "enabled", "outside");

    String l4 = firstNode("pool=other");
    gpus(l4).setHealth(0, GpuHealth.DEGRADED);
    JsonNode health =
        awaitFleetctl(
                "fleetctl changes shows the health of " + l4 + " changed outside",
                Duration.ofSeconds(10))
            .until(
                () ->
                    Fleetctl.JSON.readTree(
                        ok(fleetctl("changes", "-l", "pool=other", "-o", "json"))),
                json -> json.size() > 0);
    assertThat(health.get(0).path("node").asText()).isEqualTo(l4);
    assertThat(health.get(0).path("aspect").asText()).isEqualTo("health");
    assertThat(health.get(0).path("before").asText()).isEqualTo("healthy");
    assertThat(health.get(0).path("after").asText()).isEqualTo("degraded");
    assertThat(health.get(0).path("cause").asText()).isEqualTo("outside");
    assertThat(ok(fleetctl("drift", "--cause", "changed-outside"))).doesNotContain(l4);

    Run badTime = fleetctl("changes", "--since", "yesterday");
    assertThat(badTime.exit()).as(badTime.toString()).isEqualTo(1);
    assertThat(badTime.err()).startsWith("error: 400 ").contains("since");
  }

  /** The simulated GPUs of {@code node}: what a test's hand changes behind Fleetwave's back. */
  private static SimulatedGpuBackend gpus(String node) {
    return fleet.node(node).orElseThrow().gpus();
  }

  private static String firstNode(String selector) throws Exception {
    JsonNode nodes =
        Fleetctl.JSON.readTree(ok(fleetctl("nodes", "list", "-l", selector, "-o", "json")));
    return nodes.get(0).path("name").asText();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
