package io.fleetwave.controlplane.identity;

import static io.fleetwave.controlplane.fixtures.DeadLetters.header;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.CanaryRollouts;
import io.fleetwave.controlplane.fixtures.DeadLetters;
import io.fleetwave.controlplane.fixtures.EngineTakeovers;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.KubernetesInstall;
import io.fleetwave.controlplane.fixtures.LoggedRollouts;
import io.fleetwave.controlplane.fixtures.NodeActions;
import io.fleetwave.controlplane.fixtures.NodeEnrolments;
import io.fleetwave.controlplane.fixtures.ProjectionRebuilds;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.RunsLast;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.controlplane.fixtures.UserOperatorStandIn;
import io.fleetwave.controlplane.projection.ControlFactBackfill;
import io.fleetwave.controlplane.rollout.engine.RolloutEngine;
import io.fleetwave.controlplane.rollout.engine.RolloutEngines;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.fact.AuditRecorded;
import io.fleetwave.events.fact.CommandGenerationUsed;
import io.fleetwave.events.fact.DesiredSpecSet;
import io.fleetwave.events.fact.OperatorRequestHandled;
import io.fleetwave.events.fact.OperatorRequested;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.assertj.core.api.Condition;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL is a projection again (issue 33, item 4): node keys, revocations and re-admissions,
 * join tokens, MIG config imports, desired spec and command generations and the audit log are facts
 * on fleet.control-facts, recorded before the request succeeds. A database dropped under a running,
 * signing fleet is rebuilt from offset 0 with the same rows, and the nodes' signed events are
 * projected again without any node enrolling again; a broker that refuses the fact makes the
 * enrolment fail and leaves the tables as they were. It drops the database of the application it
 * runs in, so it runs last there ({@link RunsLast}): in the application of {@link
 * KubernetesInstall}, whose other classes store nothing but through the API, so the rebuilt tables
 * must equal the lost ones row for row, theirs included. Every enrolment there waits for its node's
 * Kafka Secret, which {@link UserOperatorStandIn} writes.
 */
@QuarkusTest
@TestProfile(KubernetesInstall.class)
@RunsLast
class ControlFactsIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final List<String> FACT_TABLES =
      List.of(
          "node_keys",
          "revoked_nodes",
          "join_tokens",
          "mig_configs",
          "desired_specs",
          "desired_spec_history",
          "command_generations",
          "audit_log",
          "rollout_requests",
          "applied_facts");

  /**
   * What the rebuild request itself adds to the audit log (its entry before it runs, and after).
   */
  private static final String REBUILD = "/api/v1/admin/projection/rebuild";

  /** The label the requests test's rollout selects its two nodes by. */
  private static final Map<String, String> POOL = Map.of("facts-requests", "yes");

  /** The label the owed answer test's rollout selects its two nodes by. */
  private static final Map<String, String> OWED = Map.of("facts-owed", "yes");

  /** A mig-parted file of one config of this test's own. */
  private static final String MIG_FILE =
      """
      version: v1
      mig-configs:
        facts-seven-slices:
          - devices: all
            mig-enabled: true
            mig-devices:
              "1g.10gb": 7
      """;

  /** The nodes the dropped-database test counts, in any row that names one. */
  private static final Pattern COUNTED_NODES = Pattern.compile("\"facts-[a-e]\"");

  @KubernetesTestServer KubernetesServer kubernetes;

  private UserOperatorStandIn userOperator;

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  @Inject LoggedRollouts loggedRollouts;

  @Inject Flyway flyway;

  @Inject ControlFactBackfill backfill;

  @Inject RolloutEngines engines;

  @BeforeEach
  void startUserOperator() {
    userOperator =
        new UserOperatorStandIn(kubernetes.getClient(), KubernetesInstall.KAFKA_NAMESPACE);
  }

  @AfterEach
  void stopUserOperator() {
    userOperator.close();
  }

  @Test
  void aDroppedDatabaseIsRebuiltFromTheLogAndTheFleetKeepsSigningWithoutEnrollingAgain() {
    NodeEventSigner a = NodeEnrolments.enroll("facts-a");
    NodeEventSigner b = NodeEnrolments.enroll("facts-b");
    // Revoked, re-admitted and enrolled again with a new key: the old key must stay revoked.
    NodeEventSigner oldC = NodeEnrolments.enroll("facts-c");
    given().delete("/api/v1/nodes/facts-c/enrolment").then().statusCode(200);
    given().post("/api/v1/nodes/facts-c/enrolment/readmission").then().statusCode(200);
    NodeEventSigner c = NodeEnrolments.enroll("facts-c");
    // Revoked and left so.
    NodeEventSigner d = NodeEnrolments.enroll("facts-d");
    given().delete("/api/v1/nodes/facts-d/enrolment").then().statusCode(200);
    // A host that has not enrolled yet: its join token must still work after the loss.
    String unused = NodeEnrolments.joinToken("facts-e", 600);
    NodeEventSigner e = NodeEventSigner.generate();
    importMigFile().statusCode(201);

    try (TopicClient topic = new TopicClient()) {
      topic.publishSigned(registered("facts-a", 0), a);
      topic.publishSigned(registered("facts-b", 0), b);
      topic.publishSigned(inventory("facts-b", 1), b);
      topic.publishSigned(registered("facts-c", 0), c);
      await()
          .atMost(BOUND)
          .until(
              () ->
                  ProjectionRows.position("facts-a") != null
                      && ProjectionRows.isAt("facts-b", 1, 1)
                      && ProjectionRows.position("facts-c") != null);
      // Generations an agent has seen: specs 1 and 2 of facts-a, commands 1 and 2 of facts-b.
      assertThat(putSpec("facts-a", "580.95.05")).isEqualTo(1);
      assertThat(putSpec("facts-a", "580.105.08")).isEqualTo(2);
      assertThat(NodeActions.resetGpu("facts-b", 0)).isEqualTo(1);
      assertThat(NodeActions.resetGpu("facts-b", 0)).isEqualTo(2);
      Map<String, List<String>> before = factRows();
      assertThat(before.get("desired_specs")).anyMatch(row -> row.contains("580.105.08"));
      assertThat(before.get("command_generations")).anyMatch(row -> row.contains("facts-b"));
      assertThat(before.get("audit_log"))
          .anyMatch(row -> row.contains("PUT /api/v1/nodes/{name}/spec"))
          .anyMatch(row -> row.contains("POST /api/v1/nodes/{name}/enrolment"));
      // The other tests' nodes, of this class and of the classes before it, are left out.
      assertThat(before.get("node_keys")).filteredOn(ControlFactsIT::ours).hasSize(5);
      assertThat(before.get("revoked_nodes")).filteredOn(ControlFactsIT::ours).hasSize(1);
      assertThat(before.get("mig_configs")).anyMatch(row -> row.contains("facts-seven-slices"));
      assertThat(before.get("join_tokens"))
          .filteredOn(ControlFactsIT::ours)
          .hasSize(6)
          .noneMatch(row -> row.contains(secret(unused)));

      dropTheDatabase();
      assertThat(factRows().values()).allSatisfy(rows -> assertThat(rows).isEmpty());

      List<String> differences = ProjectionRebuilds.differences(Duration.ofSeconds(120));
      // Live against rebuilt, row by row (the rebuild's own comparison of every table): the fact
      // tables restored from fleet.control-facts, the lost nodes from fleet.node-events.
      assertThat(differences).isEmpty();
      Map<String, List<String>> after = factRows();
      // This rebuild's own entries (an earlier test's rebuild has its entries in both).
      List<String> rebuildEntries =
          after.get("audit_log").stream()
              .filter(row -> row.contains(REBUILD) && !before.get("audit_log").contains(row))
              .toList();
      assertThat(rebuildEntries).isNotEmpty();
      for (String table : FACT_TABLES) {
        List<String> rows = new ArrayList<>(after.get(table));
        if (table.equals("audit_log")) {
          rows.removeAll(rebuildEntries);
        }
        if (table.equals("applied_facts")) {
          // One fact per entry the rebuild request added; the ids are random.
          assertThat(rows)
              .containsAll(before.get(table))
              .hasSize(before.get(table).size() + rebuildEntries.size());
          continue;
        }
        assertThat(rows).as(table).isEqualTo(before.get(table));
      }

      given()
          .contentType("application/json")
          .body(Map.of("publicKey", e.publicKeyPem(), "joinToken", unused))
          .post("/api/v1/nodes/facts-e/enrolment")
          .then()
          .statusCode(201);

      // The nodes go on with the keys they have: projected, not dead-lettered.
      topic.publishSigned(Events.envelope("facts-a", 1, 1, Events.heartbeat(7)), a);
      topic.publishSigned(inventory("facts-b", 2), b);
      topic.publishSigned(Events.envelope("facts-c", 1, 1, Events.heartbeat(7)), c);
      await()
          .atMost(BOUND)
          .until(
              () ->
                  ProjectionRows.isAt("facts-a", 1, 1)
                      && ProjectionRows.isAt("facts-b", 1, 2)
                      && ProjectionRows.isAt("facts-c", 1, 1));
      // No generation an agent has seen is used again (a replay it would refuse, or accept).
      assertThat(putSpec("facts-a", "580.126.09")).isEqualTo(3);
      assertThat(NodeActions.resetGpu("facts-b", 0)).isEqualTo(3);
      // What was revoked stays revoked.
      var refusedOld = topic.publishSigned(Events.envelope("facts-c", 1, 2, heartbeat()), oldC);
      var refusedD = topic.publishSigned(Events.envelope("facts-d", 1, 0, heartbeat()), d);
      await()
          .atMost(BOUND)
          .untilAsserted(
              () ->
                  assertThat(reasonsAt(topic, refusedOld, refusedD))
                      .allMatch(reason -> reason.contains("revoked key"))
                      .hasSize(2));
    }
  }

  /**
   * Operators' requests are facts too. A database dropped with two requests handled and one pending
   * (no engine ran) comes back with the same requests, under the same ids, handled as they were;
   * the engine, started on the lost database before the rebuild restored the rollout, handles the
   * pending one once, handles none of the others again and starts no node again. A request Kafka
   * refuses is answered 503 fact-not-recorded and nothing is queued.
   */
  @Test
  void aDroppedDatabaseKeepsHandledRequestsHandledAndPendingOnesPending() throws Exception {
    FleetNodes.publishAndAwait(
        List.of(
            new FleetNodes.Node(
                "requests-1", HostKind.UBUNTU, "z1", "580.95.05", "H100-80GB", 1, POOL),
            new FleetNodes.Node(
                "requests-2", HostKind.UBUNTU, "z1", "580.95.05", "H100-80GB", 1, POOL)));
    String rollout = CanaryRollouts.startCanary("facts-requests", "facts-requests=yes", BOUND);
    act(rollout, "pause").statusCode(200);
    // A second leader before the loss, so that the log holds a term the lost database's lease
    // issues again (its terms start at 1 once more).
    engines.stopEngine();
    RolloutEngine second = EngineTakeovers.startNew(engines);
    await("a second leader").atMost(BOUND).until(second::leading);
    act(rollout, "resume").statusCode(200);
    engines.stopEngine();
    long termBeforeTheLoss = Collections.max(termsInTheLog(rollout));
    assertThat(termBeforeTheLoss).isGreaterThan(1);
    try {
      try (Admin admin = admin()) {
        setMaxMessageBytes(admin, "64");
        try {
          act(rollout, "pause")
              .statusCode(503)
              .body("type", containsString("fact-not-recorded"))
              .body("detail", containsString("io.fleetwave.fact.operator-requested"))
              .body("detail", containsString("nothing was changed"));
        } finally {
          setMaxMessageBytes(admin, null);
        }
      }
      assertThat(requestRows(rollout)).as("the refused request is not queued").hasSize(2);
      // No engine runs: the request stays queued.
      act(rollout, "pause").statusCode(202);
      List<String> before = requestRows(rollout);
      assertThat(before)
          .hasSize(3)
          .areExactly(2, requestDone())
          .areExactly(1, new Condition<>(row -> row.contains("\"outcome\": null"), "pending"));

      dropTheDatabase();
      RolloutEngine engine = EngineTakeovers.startNew(engines);
      await("an engine leads on the lost database").atMost(BOUND).until(engine::leading);
      ProjectionRebuilds.rebuild(Duration.ofSeconds(120)).statusCode(200);

      await("the pending pause is handled")
          .atMost(BOUND)
          .untilAsserted(() -> assertThat(requestRows(rollout)).hasSize(3).are(requestDone()));
      // Every append after the loss carries a term above the log's: none the fold would ignore.
      List<Long> terms = termsInTheLog(rollout);
      assertThat(terms).as("the leaders' terms in the rollout's log, in log order").isSorted();
      assertThat(terms.getLast()).isGreaterThan(termBeforeTheLoss);
      List<String> after = requestRows(rollout);
      assertThat(after).as("the handled requests, as they were").containsAll(handled(before));
      assertThat(eventTypes(rollout))
          .as("one event per request: each handled once")
          .filteredOn(type -> type.startsWith("io.fleetwave.rollout.paused"))
          .hasSize(2);
      assertThat(eventTypes(rollout))
          .filteredOn(type -> type.startsWith("io.fleetwave.rollout.resumed"))
          .hasSize(1);
      assertThat(eventTypes(rollout))
          .as("the canary, started once")
          .filteredOn(type -> type.startsWith("io.fleetwave.rollout.node-started"))
          .hasSize(1);
    } finally {
      if (engines.engine().isEmpty()) {
        EngineTakeovers.startNew(engines);
      }
    }
    act(rollout, "abort").statusCode(200);
  }

  /**
   * An answer Kafka does not take is owed: the request's events stand, the request is not handled
   * again meanwhile (a second pause would be refused, as the rollout is paused by then), and the
   * answer is recorded, as it was, once Kafka takes it.
   */
  @Test
  void anAnswerKafkaDoesNotTakeIsOwedAndItsRequestHandledOnce() throws Exception {
    FleetNodes.publishAndAwait(
        List.of(
            new FleetNodes.Node("owed-1", HostKind.UBUNTU, "z1", "580.95.05", "H100-80GB", 1, OWED),
            new FleetNodes.Node(
                "owed-2", HostKind.UBUNTU, "z1", "580.95.05", "H100-80GB", 1, OWED)));
    String rollout = CanaryRollouts.startCanary("facts-owed", "facts-owed=yes", BOUND);
    engines.stopEngine();
    try {
      act(rollout, "pause").statusCode(202); // recorded and queued: no engine runs
      try (Admin admin = admin()) {
        setMaxMessageBytes(admin, "64");
        try {
          EngineTakeovers.startNew(engines);
          await("the pause handled: its event appended")
              .atMost(BOUND)
              .until(() -> paused(rollout) == 1);
          await("the answer owed, its request handled no second time")
              .during(Duration.ofSeconds(3))
              .atMost(BOUND)
              .until(
                  () ->
                      paused(rollout) == 1
                          && requestRows(rollout).stream().noneMatch(requestDone()::matches));
        } finally {
          setMaxMessageBytes(admin, null);
        }
      }
      await("the owed answer recorded once Kafka takes it")
          .atMost(BOUND)
          .untilAsserted(() -> assertThat(requestRows(rollout)).hasSize(1).are(requestDone()));
      assertThat(paused(rollout)).isEqualTo(1);
    } finally {
      if (engines.engine().isEmpty()) {
        EngineTakeovers.startNew(engines);
      }
    }
    act(rollout, "abort").statusCode(200);
  }

  private static long paused(String rollout) {
    return eventTypes(rollout).stream()
        .filter(type -> type.startsWith("io.fleetwave.rollout.paused"))
        .count();
  }

  @Test
  void anEnrolmentTheBrokerRefusesFailsWithTheReasonAndStoresNothing() throws Exception {
    String node = "facts-refused";
    String token = NodeEnrolments.joinToken(node, 600);
    NodeEventSigner key = NodeEventSigner.generate();
    Map<String, String> enrolment = Map.of("publicKey", key.publicKeyPem(), "joinToken", token);
    try (Admin admin = admin()) {
      // A fact larger than the topic takes: the broker refuses the append, for good.
      setMaxMessageBytes(admin, "64");
      try {
        given()
            .contentType("application/json")
            .body(enrolment)
            .post("/api/v1/nodes/" + node + "/enrolment")
            .then()
            .statusCode(503)
            .body("detail", containsString("Kafka refused the fact"))
            .body("detail", containsString(Topics.CONTROL_FACTS))
            .body("detail", containsString("nothing was changed"));
        assertThat(factRows().get("node_keys")).noneMatch(row -> row.contains(node));
        List<String> configs = factRows().get("mig_configs");
        List<String> audit = factRows().get("audit_log");
        // An admin operation is audited before it runs: its entry's fact is refused first, and
        // the import is refused with it (fail closed), naming the fact.
        importMigFile()
            .statusCode(503)
            .body("type", containsString("fact-not-recorded"))
            .body(
                "detail", containsString("Kafka refused the fact io.fleetwave.fact.audit-recorded"))
            .body("detail", containsString("nothing was changed"));
        assertThat(factRows().get("mig_configs")).isEqualTo(configs);
        assertThat(factRows().get("audit_log")).isEqualTo(audit);
      } finally {
        setMaxMessageBytes(admin, null);
      }
    }
    // The refusal rolled the token's use back with it: the same request succeeds now.
    await()
        .atMost(BOUND)
        .untilAsserted(
            () ->
                given()
                    .contentType("application/json")
                    .body(enrolment)
                    .post("/api/v1/nodes/" + node + "/enrolment")
                    .then()
                    .statusCode(201));
    assertThat(factRows().get("node_keys")).anyMatch(row -> row.contains(key.keyId()));
  }

  /**
   * A database from before this release: rows without facts, listed for the backfill as migrations
   * V34 and V41 list them. The first start publishes one fact per row (and a handled request's
   * answer after its request) and marks it applied; the second publishes nothing.
   */
  @Test
  void rowsStoredBeforeTheyWereFactsArePublishedOnceAcrossTwoStarts() throws Exception {
    String actor = "backfill-" + System.nanoTime();
    UUID rollout = UUID.randomUUID();
    UUID handled = UUID.randomUUID();
    UUID pending = UUID.randomUUID();
    String spec =
        EventCodec.mapper()
            .writeValueAsString(
                new NodeSpec("facts-old", 7, "580.95.05", List.of(), GatePolicy.OPEN));
    sql(
        "INSERT INTO audit_log (at, actor, action, target, status, outcome) VALUES (now(), '"
            + actor
            + "', 'PUT /api/v1/nodes/{name}/spec', '/api/v1/nodes/facts-old/spec', 202,"
            + " 'accepted');"
            + "INSERT INTO desired_specs (node, generation, spec, updated_at, actor) VALUES"
            + " ('facts-old', 7, '"
            + spec
            + "'::jsonb, now(), '"
            + actor
            + "');"
            + "INSERT INTO command_generations (node, generation, updated_at) VALUES"
            + " ('facts-old', 5, now());"
            + "INSERT INTO facts_to_backfill SELECT 'audit_log', id::text FROM audit_log"
            + " WHERE actor = '"
            + actor
            + "';"
            + "INSERT INTO facts_to_backfill VALUES ('desired_specs', 'facts-old'),"
            + " ('command_generations', 'facts-old');"
            + "INSERT INTO rollout_requests (id, rollout, action, reason, actor, requested_at,"
            + " handled_at, outcome) VALUES ('"
            + handled
            + "', '"
            + rollout
            + "', 'pause', 'old', 'alice', now() - interval '1 minute', now(), 'done'), ('"
            + pending
            + "', '"
            + rollout
            + "', 'resume', null, 'alice', now(), null, null);"
            + "INSERT INTO facts_to_backfill SELECT 'rollout_requests', id::text FROM"
            + " rollout_requests WHERE rollout = '"
            + rollout
            + "'");
    Map<String, List<String>> before = factRows();

    assertThat(backfill.run(BOUND)).as("the first start").isEqualTo(6);
    assertThat(backfill.run(BOUND)).as("the second start").isZero();

    List<Envelope<FleetEvent>> published = new ArrayList<>();
    List<FleetEvent> requests = new ArrayList<>();
    try (TopicClient topic = new TopicClient()) {
      for (ConsumerRecord<String, byte[]> record : topic.readAll(Topics.CONTROL_FACTS)) {
        Envelope<FleetEvent> fact = EventCodec.decode(record.value());
        if (fact.subject().equals("facts-old")
            || (fact.data() instanceof AuditRecorded entry && entry.actor().equals(actor))) {
          published.add(fact);
        }
        if (fact.subject().equals(rollout.toString())) {
          requests.add(fact.data());
        }
      }
    }
    assertThat(published)
        .extracting(Envelope::data)
        .hasSize(3)
        .hasExactlyElementsOfTypes(
            AuditRecorded.class, DesiredSpecSet.class, CommandGenerationUsed.class);
    assertThat(published)
        .extracting(Envelope::data)
        .anySatisfy(
            fact ->
                assertThat(fact)
                    .isInstanceOfSatisfying(
                        DesiredSpecSet.class,
                        set -> assertThat(set.spec().generation()).isEqualTo(7)))
        .anySatisfy(
            fact ->
                assertThat(fact)
                    .isInstanceOfSatisfying(
                        CommandGenerationUsed.class,
                        used -> assertThat(used.generation()).isEqualTo(5)));
    // The handled request, then its answer, then the pending one: oldest first, each answer
    // after its request.
    assertThat(requests)
        .satisfiesExactly(
            first ->
                assertThat(first)
                    .isEqualTo(
                        new OperatorRequested(
                            handled, rollout, "pause", "old", "alice", requestedAt(handled))),
            answer ->
                assertThat(answer)
                    .isInstanceOfSatisfying(
                        OperatorRequestHandled.class,
                        done -> {
                          assertThat(done.request()).isEqualTo(handled);
                          assertThat(done.outcome()).isEqualTo("done");
                        }),
            last ->
                assertThat(last)
                    .isInstanceOfSatisfying(
                        OperatorRequested.class,
                        request -> assertThat(request.request()).isEqualTo(pending)));
    // Marked applied as published, so no follower or rebuild writes the rows a second time.
    Map<String, List<String>> after = factRows();
    assertThat(after.get("applied_facts"))
        .containsAll(before.get("applied_facts"))
        .hasSize(before.get("applied_facts").size() + 6);
    for (String table :
        List.of("audit_log", "desired_specs", "command_generations", "rollout_requests")) {
      assertThat(after.get(table)).as(table).isEqualTo(before.get(table));
    }
  }

  private static java.time.Instant requestedAt(UUID request) {
    try (Connection connection = ProjectionRows.connect();
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT requested_at FROM rollout_requests WHERE id = '" + request + "'")) {
      result.next();
      return result.getObject(1, java.time.OffsetDateTime.class).toInstant();
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static long putSpec(String node, String driver) {
    return NodeActions.putSpec(node, Map.of("driverVersion", driver));
  }

  private static Envelope<NodeEvent> inventory(String node, long seq) {
    return Events.envelope(node, 1, seq, Events.inventory(Events.L4, 1, MigMode.DISABLED));
  }

  private static io.restassured.response.ValidatableResponse importMigFile() {
    return given()
        .contentType("application/yaml")
        .queryParam("source", "facts test")
        .body(MIG_FILE.getBytes(StandardCharsets.UTF_8))
        .post("/api/v1/mig-configs")
        .then();
  }

  private static boolean ours(String row) {
    return COUNTED_NODES.matcher(row).find();
  }

  private static io.restassured.response.ValidatableResponse act(String rollout, String action) {
    return given().post("/api/v1/rollouts/" + rollout + "/" + action).then();
  }

  /** The term of each of the rollout's records on fleet.rollout-events, in log order. */
  private List<Long> termsInTheLog(String rollout) {
    return loggedRollouts.readAll(BOUND).getOrDefault(UUID.fromString(rollout), List.of()).stream()
        .map(record -> record.envelope().epoch())
        .toList();
  }

  /** The rollout's requests, oldest first, read over JDBC (id, action, times and outcome). */
  private static List<String> requestRows(String rollout) {
    return ProjectionRows.texts(
        "SELECT to_jsonb(t)::text FROM rollout_requests t WHERE rollout = '"
            + UUID.fromString(rollout)
            + "' ORDER BY requested_at");
  }

  private static Condition<String> requestDone() {
    return new Condition<>(row -> row.contains("\"outcome\": \"done\""), "done");
  }

  private static List<String> handled(List<String> rows) {
    return rows.stream().filter(requestDone()::matches).toList();
  }

  private static List<String> eventTypes(String rollout) {
    return ApiReads.ok("/api/v1/rollouts/" + rollout + "/events?after=0")
        .getList("type", String.class);
  }

  /** The secret part of a join token (after the dot), which nothing may store. */
  private static String secret(String token) {
    return token.substring(token.indexOf('.') + 1);
  }

  /** The dead-letter reasons of these records (matched by partition and offset). */
  private static List<String> reasonsAt(TopicClient topic, RecordMetadata... sent) {
    List<String> reasons = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> letter : topic.deadLetters()) {
      for (RecordMetadata one : sent) {
        if (DeadLetters.isLetterOf(letter, one)) {
          reasons.add(header(letter, Topics.DLQ_REASON_HEADER));
        }
      }
    }
    return reasons;
  }

  /** The whole database gone, as after a lost volume, and migrated again to an empty schema. */
  private void dropTheDatabase() {
    sql("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
    flyway.migrate();
  }

  /**
   * The topic's max.message.bytes set, or removed (the broker's again) when {@code bytes} is null.
   */
  private static void setMaxMessageBytes(Admin admin, String bytes) throws Exception {
    AlterConfigOp change =
        bytes == null
            ? new AlterConfigOp(
                new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, ""),
                AlterConfigOp.OpType.DELETE)
            : new AlterConfigOp(
                new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, bytes),
                AlterConfigOp.OpType.SET);
    admin.incrementalAlterConfigs(Map.of(topicResource(), List.of(change))).all().get();
  }

  private static ConfigResource topicResource() {
    return new ConfigResource(ConfigResource.Type.TOPIC, Topics.CONTROL_FACTS);
  }

  private Admin admin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(props);
  }

  private static Envelope<NodeEvent> registered(String node, long seq) {
    return Events.envelope(
        node, 1, seq, Events.registered(node, HostKind.UBUNTU, "580.95.05", Map.of()));
  }

  private static io.fleetwave.events.node.Heartbeat heartbeat() {
    return Events.heartbeat(9);
  }

  /** Every row of the fact tables as text, sorted, read over JDBC (not through the code). */
  private static Map<String, List<String>> factRows() {
    Map<String, List<String>> rows = new LinkedHashMap<>();
    for (String table : FACT_TABLES) {
      rows.put(
          table,
          // audit_log without its id: PostgreSQL's numbering, not part of the entry
          ProjectionRows.texts(
              "SELECT (to_jsonb(t) - 'id')::text FROM " + table + " t ORDER BY 1"));
    }
    return rows;
  }

  private static void sql(String statements) {
    try (Connection connection = ProjectionRows.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(statements);
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
