package io.fleetwave.controlplane.spec;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;

import io.fleetwave.controlplane.fixtures.NodeActions;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.command.ResetGpu;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import io.fleetwave.events.security.CommandVerifier;
import io.fleetwave.events.security.Rejection;
import io.fleetwave.events.security.Verdict;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The desired-spec API against the real broker and database: nodes named spec-*. */
@QuarkusTest
class SpecApiIT {
  /** Two H100s, no SR-IOV on this host (vfsTotal 0). */
  private static final String MIG = "spec-mig";

  /** One H100 on a vGPU host: 32 VFs. */
  private static final String VGPU = "spec-vgpu";

  /** One L4: no MIG. */
  private static final String L4 = "spec-l4";

  /** For the progress events. */
  private static final String PROGRESS = "spec-progress";

  private static final String EXAMPLE =
      """
      {"driverVersion": null,
       "gpus": [{"index": 0, "migEnabled": true,
                 "instances": {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1},
                 "vfs": 4, "vgpuTypes": {"0": "H100-1-10C"}}]}
      """;

  private static boolean projected;

  @BeforeEach
  void projectNodesOnce() {
    if (projected) {
      return;
    }
    try (TopicClient topic = new TopicClient()) {
      topic.register(MIG, HostKind.UBUNTU, Events.inventory(Events.H100, 2, MigMode.DISABLED));
      topic.register(VGPU, HostKind.VGPU_HOST, new GpuInventoryReported(List.of(vgpuHostH100())));
      topic.register(L4, HostKind.TALOS, Events.inventory(Events.L4, 1, MigMode.DISABLED));
      topic.register(PROGRESS, HostKind.UBUNTU, Events.inventory(Events.H100, 1, MigMode.DISABLED));
    }
    await("the spec-* nodes projected")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                List.of(MIG, VGPU, L4, PROGRESS).stream()
                    .allMatch(n -> Arrays.equals(ProjectionRows.position(n), new long[] {1, 1})));
    projected = true;
  }

  @Test
  void theIssueExampleIsPublishedSignedAndVerifiesWithThePublishedPublicKey() {
    int before = desiredRecords(VGPU).size();
    long generation = put(VGPU, EXAMPLE).statusCode(202).extract().jsonPath().getLong("generation");

    List<byte[]> records = desiredRecords(VGPU);
    assertThat(records).hasSize(before + 1);
    CommandEnvelope command = decode(records.getLast());
    assertThat(verifier().verify(command, VGPU, generation - 1, Instant.now()).accepted())
        .as("signature verifies with GET /api/v1/security/public-key")
        .isTrue();
    NodeSpec spec = ((ApplyNodeSpec) command.data()).spec();
    assertThat(spec.generation()).isEqualTo(generation);
    assertThat(spec.gpus())
        .containsExactly(
            new GpuSpec(
                0,
                true,
                Map.of("1g.10gb", 2, "2g.20gb", 1, "3g.40gb", 1),
                4,
                Map.of(0, "H100-1-10C")));

    // Tampering with the record breaks the signature.
    CommandEnvelope tampered =
        new CommandEnvelope(
            command.id(),
            command.source(),
            command.type(),
            command.subject(),
            command.time(),
            new ApplyNodeSpec(
                new NodeSpec(VGPU, generation, "999.1", spec.gpus(), spec.gate()),
                ((ApplyNodeSpec) command.data()).issuedAt(),
                null),
            command.kid(),
            command.signature());
    assertThat(verifier().verify(tampered, VGPU, 0, Instant.now()))
        .isInstanceOfSatisfying(
            Verdict.Rejected.class,
            rejected -> assertThat(rejected.rejection()).isEqualTo(Rejection.FORGED));
  }

  @Test
  void anAdminReSignsEveryCurrentSpecAtItsGenerationWithTheCurrentKey() {
    long generation =
        put(L4, "{\"gpus\": [{\"index\": 0, \"migEnabled\": false}]}")
            .statusCode(202)
            .extract()
            .jsonPath()
            .getLong("generation");
    CommandEnvelope published = decode(desiredRecords(L4).getLast());

    JsonPath answer =
        given() // as admin (RestAssuredDefaults)
            .post("/api/v1/admin/specs/re-sign")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();

    CommandEnvelope resigned = decode(desiredRecords(L4).getLast());
    assertThat(answer.getInt("specs")).isGreaterThanOrEqualTo(1);
    assertThat(answer.getString("kid")).isEqualTo(resigned.kid());
    assertThat(resigned.id()).isNotEqualTo(published.id());
    assertThat(resigned.data()).isInstanceOf(ApplyNodeSpec.class);
    assertThat(((ApplyNodeSpec) resigned.data()).spec())
        .isEqualTo(((ApplyNodeSpec) published.data()).spec());
    assertThat(resigned.data().generation()).isEqualTo(generation);
    assertThat(verifier().verify(resigned, L4, generation - 1, Instant.now()).accepted()).isTrue();
  }

  @Test
  void generationsIncrementAndGpusNotListedAreMergedFromThePreviousSpec() {
    long first =
        put(
                MIG,
                "{\"gpus\": [{\"index\": 0, \"migEnabled\": true, \"instances\": {\"3g.40gb\": 2}}]}")
            .statusCode(202)
            .body("node", equalTo(MIG))
            .extract()
            .jsonPath()
            .getLong("generation");
    long second =
        put(
                MIG,
                "{\"gpus\": [{\"index\": 1, \"migEnabled\": true, \"instances\": {\"7g.80gb\": 1}}]}")
            .statusCode(202)
            .extract()
            .jsonPath()
            .getLong("generation");

    assertThat(second).isEqualTo(first + 1);
    NodeSpec spec = ((ApplyNodeSpec) decode(desiredRecords(MIG).getLast()).data()).spec();
    assertThat(spec.generation()).isEqualTo(second);
    assertThat(spec.gpu(0).orElseThrow().instances()).isEqualTo(Map.of("3g.40gb", 2));
    assertThat(spec.gpu(1).orElseThrow().instances()).isEqualTo(Map.of("7g.80gb", 1));
    assertThat(
            ProjectionRows.countsBy(
                "SELECT actor, generation::int FROM desired_specs WHERE node = '" + MIG + "'"))
        .as("the spec record names who set it: the token's subject")
        .containsExactly(Map.entry("test-admin", (int) second));
    List<Map<String, Object>> audited =
        given()
            .queryParam("actor", "test-admin")
            .get("/api/v1/audit")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getList("items");
    assertThat(audited)
        .as("both changes are in the audit log, accepted")
        .filteredOn(entry -> ("/api/v1/nodes/" + MIG + "/spec").equals(entry.get("target")))
        .filteredOn(entry -> "accepted (202)".equals(entry.get("outcome")))
        .extracting(entry -> entry.get("action"))
        .hasSizeGreaterThanOrEqualTo(2)
        .containsOnly("PUT /api/v1/nodes/{name}/spec");
    given()
        .get("/api/v1/nodes/{name}/spec", MIG)
        .then()
        .statusCode(200)
        .body("desired.generation", equalTo((int) second))
        .body("desired.spec.gpus[0].instances.'3g.40gb'", equalTo(2))
        .body("observed.size()", equalTo(2))
        .body("converged", equalTo(false))
        .body("notConvergedReason", equalTo("desired generation " + second + ", agent applied 0"));
    given()
        .get("/api/v1/nodes/{name}", MIG)
        .then()
        .body("desiredGeneration", equalTo((int) second))
        .body("appliedGeneration", equalTo(0))
        .body("converged", equalTo(false));
  }

  @Test
  void invalidSpecsAre422NamingTheGpuAndFieldAndPublishNothing() {
    int mig = desiredRecords(MIG).size();
    int vgpu = desiredRecords(VGPU).size();
    int l4 = desiredRecords(L4).size();

    invalid(MIG, "{\"gpus\": [{\"index\": 7, \"migEnabled\": true}]}", "gpus[0].index", "no GPU 7");
    invalid(
        MIG,
        "{\"gpus\": [{\"index\": 0, \"migEnabled\": true, \"instances\": {\"9g.99gb\": 1}}]}",
        "gpus[0].instances.9g.99gb",
        "profile 9g.99gb does not exist");
    invalid(
        MIG,
        "{\"gpus\": [{\"index\": 1, \"migEnabled\": true, \"instances\": {\"4g.40gb\": 1,"
            + " \"3g.40gb\": 1, \"1g.10gb\": 1}}]}",
        "gpus[0].instances",
        "does not fit");
    invalid(
        L4,
        "{\"gpus\": [{\"index\": 0, \"migEnabled\": true}]}",
        "gpus[0].migEnabled",
        "not MIG capable");
    invalid(MIG, "{\"gpus\": [{\"index\": 0, \"vfs\": 2}]}", "gpus[0].vfs", "offers 0 VFs");
    // A valid spec for another node in between is unaffected.
    put(L4, "{\"driverVersion\": \"580.95.05\"}").statusCode(202);
    invalid(VGPU, "{\"gpus\": [{\"index\": 0, \"vfs\": 40}]}", "gpus[0].vfs", "offers 32 VFs");
    invalid(
        VGPU,
        "{\"gpus\": [{\"index\": 0, \"migEnabled\": false, \"vfs\": 2,"
            + " \"vgpuTypes\": {\"0\": \"L4-4Q\"}}]}",
        "gpus[0].vgpuTypes.0",
        "'L4-4Q' is not a vGPU type of NVIDIA H100");
    invalid(
        VGPU,
        "{\"gpus\": [{\"index\": 0, \"migEnabled\": false, \"vfs\": 2,"
            + " \"vgpuTypes\": {\"3\": \"H100-10C\"}}]}",
        "gpus[0].vgpuTypes.3",
        "VF 3 will not exist");
    invalid(
        VGPU,
        "{\"gpus\": [{\"index\": 0, \"migEnabled\": true, \"instances\": {\"1g.10gb\": 1},"
            + " \"vfs\": 2, \"vgpuTypes\": {\"0\": \"H100-3-40C\"}}]}",
        "gpus[0].vgpuTypes.0",
        "needs its own 3g.40gb GPU instance");

    // Every problem of one request is listed.
    JsonPath all =
        put(
                MIG,
                "{\"gpus\": [{\"index\": 0, \"migEnabled\": true, \"instances\": {\"3g.40gb\": 3}},"
                    + " {\"index\": 1, \"vfs\": 1}, {\"index\": 5}]}")
            .statusCode(422)
            .contentType("application/problem+json")
            .extract()
            .jsonPath();
    assertThat(all.getList("errors.field", String.class))
        .containsExactly("gpus[0].instances.3g.40gb", "gpus[1].vfs", "gpus[2].index");
    assertThat(all.getString("errors[0].message"))
        .startsWith("GPU 0 (NVIDIA H100 80GB HBM3, 0x233010DE)")
        .contains("H100-80GB holds at most 2 x 3g.40gb, 3 asked");

    given()
        .contentType(ContentType.JSON)
        .body(EXAMPLE)
        .put("/api/v1/nodes/{name}/spec", "spec-nobody")
        .then()
        .statusCode(404)
        .contentType("application/problem+json")
        .body("detail", containsString("spec-nobody"));

    assertThat(desiredRecords(MIG)).hasSize(mig);
    assertThat(desiredRecords(VGPU)).hasSize(vgpu);
    assertThat(desiredRecords(L4)).as("the one valid spec").hasSize(l4 + 1);
  }

  @Test
  void progressEventsShowStepsAndWhyNotConvergedAndDuplicatesChangeNothing() {
    long generation =
        put(
                PROGRESS,
                "{\"gpus\": [{\"index\": 0, \"migEnabled\": true, \"instances\": {\"7g.80gb\": 1}}]}")
            .statusCode(202)
            .extract()
            .jsonPath()
            .getLong("generation");
    PlannedStep mig = new PlannedStep(0, StepKind.SET_MIG_MODE, 0, "MIG on", 30_000);
    PlannedStep reset = new PlannedStep(1, StepKind.RESET_GPU, 0, "targeted reset", 60_000);
    PlannedStep create = new PlannedStep(2, StepKind.CREATE_INSTANCE, 0, "7g.80gb at 0", 30_000);
    PlannedStep gate = new PlannedStep(3, StepKind.RELEASE_GATE, null, "release", 5_000);
    List<Envelope<NodeEvent>> failing =
        List.of(
            progress(2, new SpecAccepted(generation, List.of(mig, reset, create, gate))),
            progress(3, new StepStarted(generation, mig)),
            progress(4, new StepSucceeded(generation, mig, 40)),
            progress(5, new StepStarted(generation, reset)),
            progress(
                6,
                new StepFailed(
                    generation,
                    reset,
                    "GPU 0: reset refused: the GPU is open by nvidia-persistenced",
                    "nvidia-persistenced",
                    60_000)));
    try (TopicClient topic = new TopicClient()) {
      topic.publishAll(failing);
      awaitPosition(6);
      JsonPath failed = spec(PROGRESS);
      assertThat(failed.getList("reconcile.steps.state", String.class))
          .containsExactly("succeeded", "failed", "planned", "planned");
      assertThat(failed.getString("reconcile.steps[1].holder")).isEqualTo("nvidia-persistenced");
      assertThat(failed.getBoolean("converged")).isFalse();
      assertThat(failed.getString("notConvergedReason"))
          .isEqualTo(
              "step reset-gpu on GPU 0 of generation "
                  + generation
                  + " failed: GPU 0: reset refused: the GPU is open by nvidia-persistenced"
                  + " (held by nvidia-persistenced)");

      // Duplicates and an older event, then a heartbeat to know they were consumed.
      topic.publishAll(failing);
      topic.publish(progress(1, new SpecApplied(generation)));
      topic.publish(progress(7, Events.heartbeat(70)));
      awaitPosition(7);
      assertThat(spec(PROGRESS).getMap("reconcile")).isEqualTo(failed.getMap("reconcile"));

      topic.publishAll(
          List.of(
              progress(8, new StepStarted(generation, reset)),
              progress(9, new StepSucceeded(generation, reset, 900)),
              progress(10, new StepSucceeded(generation, create, 200)),
              progress(11, new StepSucceeded(generation, gate, 1)),
              progress(12, new SpecApplied(generation))));
      awaitPosition(12);
      JsonPath converged = spec(PROGRESS);
      assertThat(converged.getBoolean("converged")).isTrue();
      assertThat(converged.getString("notConvergedReason")).isNull();
      assertThat(converged.getLong("reconcile.appliedGeneration")).isEqualTo(generation);
      assertThat(converged.getList("reconcile.steps.state", String.class))
          .containsExactly("succeeded", "succeeded", "succeeded", "succeeded");
      given().get("/api/v1/nodes/{name}", PROGRESS).then().body("converged", equalTo(true));

      // A forged next generation: the agent refuses it and the node says why.
      long next =
          put(PROGRESS, "{\"gpus\": [{\"index\": 0, \"migEnabled\": false}]}")
              .statusCode(202)
              .extract()
              .jsonPath()
              .getLong("generation");
      topic.publish(
          progress(
              13,
              new SpecRejected(
                  next,
                  "id-1",
                  "forged",
                  "signature does not verify against the control plane's key")));
      awaitPosition(13);
      assertThat(spec(PROGRESS).getString("notConvergedReason"))
          .isEqualTo(
              "spec rejected: FORGED (generation "
                  + next
                  + "): signature does not verify against the control plane's key");
      given()
          .get("/api/v1/nodes/{name}", PROGRESS)
          .then()
          .body("appliedGeneration", equalTo((int) generation))
          .body("desiredGeneration", equalTo((int) next))
          .body("converged", equalTo(false))
          .body("notConvergedReason", startsWith("spec rejected: FORGED"));
    }
  }

  @Test
  void resetGpuPublishesASignedExpiringCommandWithAGrowingGeneration() {
    long first = NodeActions.resetGpu(MIG, 1);
    long second = NodeActions.resetGpu(MIG, 1);
    assertThat(second).isGreaterThan(first);

    CommandEnvelope command;
    try (TopicClient topic = new TopicClient()) {
      command = decode(topic.valuesFor(Topics.NODE_COMMANDS, MIG).getLast());
    }
    ResetGpu reset = (ResetGpu) command.data();
    assertThat(reset.gpu()).isEqualTo(1);
    assertThat(reset.generation()).isEqualTo(second);
    assertThat(Duration.between(reset.issuedAt(), reset.expiresAt()))
        .isEqualTo(Duration.ofMinutes(5));
    assertThat(verifier().verify(command, MIG, first, Instant.now()).accepted()).isTrue();

    given()
        .contentType(ContentType.JSON)
        .body("{\"gpu\": 9}")
        .post("/api/v1/nodes/{name}/actions/reset-gpu", MIG)
        .then()
        .statusCode(422)
        .body("errors.field", hasItem("gpu"))
        .body("errors[0].message", containsString("no GPU 9"));
    given()
        .contentType(ContentType.JSON)
        .body("{\"gpu\": 0}")
        .post("/api/v1/nodes/{name}/actions/reset-gpu", "spec-nobody")
        .then()
        .statusCode(404);
  }

  @Test
  void theProductionControlPlaneHasNoSimulatorEndpoints() {
    given().post("/api/v1/simulator/nodes/{name}/reboot", MIG).then().statusCode(404);
    given()
        .contentType(ContentType.JSON)
        .body("{\"gpu\": 0, \"holder\": \"nvidia-persistenced\"}")
        .post("/api/v1/simulator/nodes/{name}/hold-handle", MIG)
        .then()
        .statusCode(404);
    given()
        .get("/q/openapi")
        .then()
        .statusCode(200)
        .body(org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsString("/simulator/")));
  }

  @Test
  void thePublicKeyIsPem() {
    given()
        .get("/api/v1/security/public-key")
        .then()
        .statusCode(200)
        .body(startsWith("-----BEGIN PUBLIC KEY-----"));
  }

  // --- helpers ---

  private static io.restassured.response.ValidatableResponse put(String node, String body) {
    return given()
        .contentType(ContentType.JSON)
        .body(body)
        .put("/api/v1/nodes/{name}/spec", node)
        .then();
  }

  private static void invalid(String node, String body, String field, String message) {
    put(node, body)
        .statusCode(422)
        .contentType("application/problem+json")
        .body("errors.field", hasItem(field))
        .body("errors.find { it.field == '" + field + "' }.message", containsString(message));
  }

  private static JsonPath spec(String node) {
    return given()
        .get("/api/v1/nodes/{name}/spec", node)
        .then()
        .statusCode(200)
        .extract()
        .jsonPath();
  }

  private static CommandVerifier verifier() {
    return CommandVerifier.fromX509(
        given().get("/api/v1/security/public-key").then().statusCode(200).extract().asString());
  }

  private List<byte[]> desiredRecords(String node) {
    try (TopicClient topic = new TopicClient()) {
      return topic.valuesFor(Topics.NODE_DESIRED, node);
    }
  }

  private static CommandEnvelope decode(byte[] value) {
    try {
      return CommandCodec.decode(value);
    } catch (Exception e) {
      throw new AssertionError("record does not decode: " + e.getMessage(), e);
    }
  }

  private static Envelope<NodeEvent> progress(long seq, NodeEvent event) {
    return Events.envelope(PROGRESS, 2, seq, event);
  }

  private static void awaitPosition(long seq) {
    await(PROGRESS + " at (2, " + seq + ")")
        .atMost(Duration.ofSeconds(30))
        .until(() -> Arrays.equals(ProjectionRows.position(PROGRESS), new long[] {2, seq}));
  }

  private static Gpu vgpuHostH100() {
    return GpuBuilder.gpu(0)
        .uuid("GPU-vgpu-0")
        .pciDeviceId(Events.H100)
        .product("NVIDIA H100 80GB HBM3")
        .memoryMiB(81559)
        .migCapable(true)
        .migMode(MigMode.DISABLED)
        .vfsTotal(32)
        .build();
  }
}
