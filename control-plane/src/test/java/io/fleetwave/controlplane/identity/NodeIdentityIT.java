package io.fleetwave.controlplane.identity;

import static io.fleetwave.controlplane.fixtures.DeadLetters.header;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.fleetwave.controlplane.fixtures.ApiReads;
import io.fleetwave.controlplane.fixtures.CanaryRollouts;
import io.fleetwave.controlplane.fixtures.DeadLetters;
import io.fleetwave.controlplane.fixtures.FleetNodes;
import io.fleetwave.controlplane.fixtures.NodeActions;
import io.fleetwave.controlplane.fixtures.NodeEnrolments;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

/**
 * Nodes prove who they are: with node identity required (as in production), a record of
 * fleet.node-events changes the projection only if its node's enrolled key signed it; a forged one
 * lands on the dead-letter topic with its cause and changes nothing.
 */
@QuarkusTest
class NodeIdentityIT {
  private static final Duration BOUND = Duration.ofSeconds(30);

  @TestHTTPResource(value = "metrics", management = true)
  java.net.URL metrics;

  @Test
  void forgedNodeEventsChangeNothingAndAreDeadLetteredWithTheirCause() {
    String node = "ident-a";
    String other = "ident-b";
    NodeEventSigner key = NodeEnrolments.enroll(node);
    NodeEventSigner otherKey = NodeEnrolments.enroll(other);
    NodeEventSigner stranger = NodeEventSigner.generate();
    try (TopicClient topic = new TopicClient()) {
      topic.publishSigned(registered(node, 0, "580.95.05"), key);
      topic.publishSigned(registered(other, 0, "580.95.05"), otherKey);
      // Both registrations applied first: the nodes may be in different partitions, whose records
      // the consumer may take in either order, and the end checks that B stayed at (1, 0).
      await()
          .atMost(BOUND)
          .until(
              () ->
                  ProjectionRows.position(node) != null && ProjectionRows.position(other) != null);

      // Each forgery would make the node report driver 999.99 at a later position.
      Envelope<NodeEvent> forged = registered(node, 1, "999.99.99");
      byte[] value = EventCodec.encode(forged);
      Envelope<NodeEvent> forgedOther = registered(other, 1, "999.99.99");
      byte[] otherValue = EventCodec.encode(forgedOther);
      List<Expected> expected =
          List.of(
              new Expected(topic.publishRaw(node, value), "unsigned node event"),
              new Expected(
                  topic.publishRaw(node, value, otherKey.keyId(), otherKey.sign(value)),
                  "signed by another node's key: record of node 'ident-a' is signed with key "
                      + otherKey.keyId()
                      + " of node 'ident-b'"),
              // The node's key id over a signature made by someone else.
              new Expected(
                  topic.publishRaw(node, value, key.keyId(), stranger.sign(value)),
                  "signature does not verify against the node's enrolled key"),
              new Expected(
                  topic.publishRaw(node, value, stranger.keyId(), stranger.sign(value)),
                  "signed by a key no node enrolled"),
              // A's genuine, signed record replayed as B's: B did not sign it.
              new Expected(
                  topic.publishRaw(other, value, key.keyId(), key.sign(value)),
                  "signed by another node's key: record of node 'ident-b'"),
              // B's record, its subject rewritten to A, under A's key id: A did not sign it.
              new Expected(
                  topic.publishRaw(
                      node,
                      EventCodec.encode(retitled(forgedOther, node)),
                      key.keyId(),
                      otherKey.sign(otherValue)),
                  "signature does not verify against the node's enrolled key"));
      // A genuine event after the forgeries: the consumer went past them.
      topic.publishSigned(Events.envelope(node, 1, 2, Events.heartbeat(5)), key);
      awaitPastForgeries(topic, node, expected);
    }
    given()
        .get("/api/v1/nodes/" + other)
        .then()
        .statusCode(200)
        .body("driverVersion", equalTo("580.95.05"));
    assertThat(ProjectionRows.position(other)).containsExactly(1, 0);
  }

  /**
   * The enrolment answer gives the control plane's agreement key, and the node's records then carry
   * a MAC the control plane checks instead of the signature: a record with the node's MAC alone is
   * applied, and no one without the node's key (or the control plane's) makes one that is.
   */
  @Test
  void aNodesMacStandsForItsSignatureAndAForgedMacChangesNothing() {
    String node = "ident-mac";
    NodeEventSigner key = NodeEnrolments.enroll(node);
    NodeEventSigner otherKey = NodeEnrolments.enroll("ident-mac-other");
    // The node's own key, agreed with a control plane whose command key is another.
    NodeEventSigner elsewhere =
        NodeEventSigner.fromPkcs8(key.privateKeyPem())
            .withMacFor(CommandSigner.generate().agreementKey().publicKey());
    double byMac = authenticated("mac");
    double bySignature = authenticated("signature");
    try (TopicClient topic = new TopicClient()) {
      byte[] genuine = EventCodec.encode(registered(node, 0, "580.95.05"));
      topic.publishRaw(node, genuine, macOnly(key, genuine, key));
      await().atMost(BOUND).until(() -> ProjectionRows.position(node) != null);
      // An older agent's record, signed only: the signature shows it is the node's.
      byte[] signedOnly = EventCodec.encode(Events.envelope(node, 1, 1, Events.heartbeat(4)));
      topic.publishRaw(node, signedOnly, key.keyId(), key.sign(signedOnly));

      byte[] value = EventCodec.encode(registered(node, 1, "999.99.99"));
      String badMac = "MAC does not verify against the key the node agreed, and no signature";
      List<Expected> expected =
          List.of(
              // Another enrolled node's MAC of the value, under this node's key id.
              new Expected(topic.publishRaw(node, value, macOnly(otherKey, value, key)), badMac),
              new Expected(topic.publishRaw(node, value, macOnly(elsewhere, value, key)), badMac),
              // The node's genuine MAC, of another value.
              new Expected(topic.publishRaw(node, value, macOnly(key, genuine, key)), badMac));
      byte[] heartbeat = EventCodec.encode(Events.envelope(node, 1, 2, Events.heartbeat(5)));
      topic.publishRaw(node, heartbeat, macOnly(key, heartbeat, key));
      awaitPastForgeries(topic, node, expected);
    }
    // The operator sees which check showed it (a signature check costs fifty MAC checks).
    assertThat(authenticated("mac")).isGreaterThanOrEqualTo(byMac + 2);
    assertThat(authenticated("signature")).isGreaterThanOrEqualTo(bySignature + 1);
  }

  /** fleetwave_node_events_authenticated_total{by} as /q/metrics serves it now. */
  private double authenticated(String by) {
    String metrics = given().get(this.metrics).then().statusCode(200).extract().asString();
    java.util.regex.Matcher value =
        java.util.regex.Pattern.compile(
                "(?m)^fleetwave_node_events_authenticated_total\\{by=\"" + by + "\",?\\} (\\S+)$")
            .matcher(metrics);
    assertThat(value.find()).as("fleetwave_node_events_authenticated_total{by=%s}", by).isTrue();
    return Double.parseDouble(value.group(1));
  }

  @Test
  void aRevokedNodesEventsAreRefused() {
    String node = "ident-revoked";
    NodeEventSigner key = NodeEnrolments.enroll(node);
    try (TopicClient topic = new TopicClient()) {
      topic.publishSigned(registered(node, 0, "580.95.05"), key);
      await().atMost(BOUND).until(() -> ProjectionRows.position(node) != null);

      given()
          .delete("/api/v1/nodes/" + node + "/enrolment")
          .then()
          .statusCode(200)
          .body("revokedKeys", equalTo(1));
      RecordMetadata refused = topic.publishSigned(registered(node, 1, "999.99.99"), key);
      awaitDeadLettered(topic, List.of(new Expected(refused, "signed by a revoked key")));
    }
    assertThat(ProjectionRows.position(node)).containsExactly(1, 0);
    given()
        .get("/api/v1/nodes/" + node)
        .then()
        .body("driverVersion", equalTo("580.95.05"))
        .body("revoked", equalTo(true))
        .body("revokedBy", equalTo("test-admin"));
    // Enrolling the revoked key again is refused; so is a new key, with a new join token: the node
    // is revoked, not only its keys. The refusals do not use the token up.
    String token = NodeEnrolments.joinToken(node, 600);
    NodeEventSigner fresh = NodeEventSigner.generate();
    for (NodeEventSigner tried : List.of(key, fresh)) {
      enroll(node, token, tried)
          .then()
          .statusCode(401)
          .body("detail", containsString("node '" + node + "' was revoked at"))
          .body("detail", containsString("re-admits it"));
    }
    // A rollout planned while it is revoked leaves it out.
    given()
        .contentType("application/json")
        .body(
            """
            {"name": "revoked-out", "target": {"nodes": ["%s"]},
             "change": {"migConfig": "all-balanced"},
             "strategy": {"waves": ["100%%"], "maxUnavailable": "1", "soakSeconds": 0,
                          "failureThreshold": {"perWave": "0", "total": "0", "action": "pause"},
                          "manualPromotion": false, "nodeTimeoutSeconds": 600}}
            """
                .formatted(node))
        .post("/api/v1/rollouts?dryRun=true")
        .then()
        .statusCode(200)
        .body("plannedNodes", equalTo(0))
        .body("excluded[0].node", equalTo(node))
        .body("excluded[0].reason", equalTo("REVOKED"));

    // An admin re-admits it: the new key enrolls (the old one stays revoked).
    given()
        .post("/api/v1/nodes/" + node + "/enrolment/readmission")
        .then()
        .statusCode(200)
        .body("revokedBy", equalTo("test-admin"));
    given()
        .post("/api/v1/nodes/" + node + "/enrolment/readmission")
        .then()
        .statusCode(409)
        .body("detail", containsString("is not revoked"));
    given().get("/api/v1/nodes/" + node).then().body("revoked", equalTo(false));
    enroll(node, token, fresh).then().statusCode(201);
    enroll(node, NodeEnrolments.joinToken(node, 600), key)
        .then()
        .statusCode(401)
        .body("detail", containsString("was revoked; enroll a new key"));
  }

  /**
   * Issue 32 finding 3: a join token that names no node (as the API made them before) cannot enroll
   * a key for a node that already has one and sign that node's events; and no such token is made
   * any more.
   */
  @Test
  void aJoinTokenWithoutANodeCannotTakeOverAnEnrolledNode() throws Exception {
    String node = "ident-victim";
    NodeEventSigner key = NodeEnrolments.enroll(node);
    NodeEventSigner attacker = NodeEventSigner.generate();
    try (TopicClient topic = new TopicClient()) {
      topic.publishSigned(registered(node, 0, "580.95.05"), key);
      await().atMost(BOUND).until(() -> ProjectionRows.position(node) != null);

      String unbound = unboundJoinTokenAsStoredBefore();
      enroll(node, unbound, attacker)
          .then()
          .statusCode(401)
          .body("detail", containsString("names no node, so it could enroll a key for any node"));

      RecordMetadata forged = topic.publishSigned(registered(node, 1, "999.99.99"), attacker);
      topic.publishSigned(Events.envelope(node, 1, 2, Events.heartbeat(5)), key);
      await()
          .atMost(BOUND)
          .until(() -> Arrays.equals(ProjectionRows.position(node), new long[] {1, 2}));
      awaitDeadLettered(topic, List.of(new Expected(forged, "signed by a key no node enrolled")));
    }
    given().get("/api/v1/nodes/" + node).then().body("driverVersion", equalTo("580.95.05"));

    for (Map<String, Object> request :
        List.<Map<String, Object>>of(Map.of("lifetimeSeconds", 600), Map.of("node", " "))) {
      given()
          .contentType("application/json")
          .body(request)
          .post("/api/v1/join-tokens")
          .then()
          .statusCode(400)
          .body("detail", containsString("node is missing: a join token enrolls the one node"));
    }
  }

  /**
   * Issue 32 finding 9: every enrolment attempt, accepted or refused, is in the audit log under its
   * credential (the join token's id, never its secret), with the node, the source and the reason.
   */
  @Test
  void everyEnrolmentAttemptIsAudited() {
    String node = "ident-audited";
    String token = NodeEnrolments.joinToken(node, 600);
    String id = token.substring(0, token.indexOf('.'));
    enroll("ident-audited-not", token).then().statusCode(401);
    NodeEventSigner key = NodeEventSigner.generate();
    enroll(node, token, key).then().statusCode(201);

    io.restassured.path.json.JsonPath audit =
        given()
            .queryParam("actor", "join token " + id)
            .get("/api/v1/audit")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    assertThat(audit.getList("items.status", Integer.class)).containsExactly(201, 401);
    assertThat(audit.getList("items.action", String.class))
        .containsOnly("POST /api/v1/nodes/{name}/enrolment");
    assertThat(audit.getString("items[0].target"))
        .isEqualTo("/api/v1/nodes/ident-audited/enrolment from 127.0.0.1");
    assertThat(audit.getString("items[0].outcome")).isEqualTo("accepted: key " + key.keyId());
    assertThat(audit.getString("items[1].target")).startsWith("/api/v1/nodes/ident-audited-not/");
    assertThat(audit.getString("items[1].outcome"))
        .isEqualTo("refused (401): join token " + id + " is for node 'ident-audited'");
    assertThat(audit.getString("items.outcome")).doesNotContain(token.substring(7));
  }

  /**
   * Issue 32 finding 9: an admin operation is audited before it takes effect, and refused when its
   * audit entry cannot be written (here PostgreSQL refuses every insert into audit_log).
   */
  @Test
  void anAdminOperationWhoseAuditEntryCannotBeWrittenChangesNothing() throws Exception {
    String node = "ident-unaudited";
    NodeEnrolments.enroll(node);
    try (java.sql.Connection db = ProjectionRows.connect();
        var statement = db.createStatement()) {
      statement.execute(
          "CREATE FUNCTION audit_down() RETURNS trigger LANGUAGE plpgsql AS"
              + " $$ BEGIN RAISE EXCEPTION 'audit log down (test)'; END $$");
      statement.execute(
          "CREATE TRIGGER audit_down BEFORE INSERT ON audit_log"
              + " FOR EACH ROW EXECUTE FUNCTION audit_down()");
      try {
        given()
            .contentType("application/json")
            .body(Map.of("node", node))
            .post("/api/v1/join-tokens")
            .then()
            .statusCode(503)
            .header("Retry-After", org.hamcrest.Matchers.notNullValue())
            .body("detail", containsString("the audit log cannot be written"));
        given().delete("/api/v1/nodes/" + node + "/enrolment").then().statusCode(503);
      } finally {
        statement.execute("DROP TRIGGER audit_down ON audit_log");
        statement.execute("DROP FUNCTION audit_down()");
      }
    }
    assertThat(ProjectionRows.count("SELECT count(*) FROM join_tokens WHERE node = '" + node + "'"))
        .as("the join token enrolled the node once; no other was made")
        .isEqualTo(1);
    assertThat(
            ProjectionRows.count(
                "SELECT count(*) FROM node_keys WHERE node = '"
                    + node
                    + "' AND revoked_at IS NULL"))
        .as("the node was not revoked")
        .isEqualTo(1);
  }

  /** A join token without a node, stored as the API stored them before tokens had to name one. */
  private static String unboundJoinTokenAsStoredBefore() throws Exception {
    String id = "unb" + (int) (Math.random() * 900 + 100);
    String secret = "0123456789abcdef";
    try (java.sql.Connection db = ProjectionRows.connect();
        var insert =
            db.prepareStatement(
                "INSERT INTO join_tokens (id, secret_hash, node, created_by, created_at,"
                    + " expires_at) VALUES (?, ?, NULL, 'test-admin', now(), now() + interval '1"
                    + " hour')")) {
      insert.setString(1, id);
      insert.setBytes(
          2,
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(secret.getBytes(StandardCharsets.UTF_8)));
      insert.executeUpdate();
    }
    return id + "." + secret;
  }

  /**
   * An agent whose enrolment was stored but whose answer it never got (its request timed out under
   * load: seen in the demo's suites) asks again with the same token and key: answered as before,
   * and only for that key; another key with the token stays refused, and a revoked node's retry
   * too.
   */
  @Test
  void aRetryOfAnEnrolmentWhoseAnswerWasLostIsAnsweredAgainForThatKeyOnly() {
    String node = "ident-retry-1";
    String token = NodeEnrolments.joinToken(node, 600);
    NodeEventSigner key = NodeEventSigner.generate();
    enroll(node, token, key).then().statusCode(201).body("keyId", equalTo(key.keyId()));
    enroll(node, token, key).then().statusCode(201).body("keyId", equalTo(key.keyId()));
    enroll(node, token, NodeEventSigner.generate())
        .then()
        .statusCode(401)
        .body("detail", containsString("was already used (by node '" + node + "'"));
    assertThat(
            ProjectionRows.count(
                "SELECT count(*) FROM node_keys WHERE node = '"
                    + node
                    + "' AND revoked_at IS NULL"))
        .as("the retry stored no second key")
        .isEqualTo(1);

    given().delete("/api/v1/nodes/" + node + "/enrolment").then().statusCode(200);
    enroll(node, token, key).then().statusCode(401).body("detail", containsString("was revoked"));
  }

  @Test
  void aJoinTokenEnrollsOneNodeOnceAndNotAfterItExpires() {
    String token = NodeEnrolments.joinToken("ident-join-1", 600);
    enroll("ident-join-1", token).then().statusCode(201).body("node", equalTo("ident-join-1"));
    enroll("ident-join-2", token)
        .then()
        .statusCode(401)
        .body("detail", containsString("was already used (by node 'ident-join-1'"));
    enroll("ident-join-1", token).then().statusCode(401);

    String shortLived = NodeEnrolments.joinToken("ident-join-3", 1);
    Instant created = Instant.now();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> Instant.now().isAfter(created.plusSeconds(2)));
    enroll("ident-join-3", shortLived)
        .then()
        .statusCode(401)
        .body("detail", containsString("expired at"));

    String bound = NodeEnrolments.joinToken("ident-join-4", 600);
    enroll("ident-join-5", bound)
        .then()
        .statusCode(401)
        .body("detail", containsString("is for node 'ident-join-4'"));
    String id = bound.substring(0, bound.indexOf('.'));
    enroll("ident-join-4", id + ".aaaaaaaaaaaaaaaa")
        .then()
        .statusCode(401)
        .body("detail", equalTo("join token " + id + " is not valid"));
    // The refusals above did not consume it.
    enroll("ident-join-4", bound).then().statusCode(201);

    given()
        .contentType("application/json")
        .body(Map.of("publicKey", NodeEventSigner.generate().publicKeyPem()))
        .post("/api/v1/nodes/ident-join-6/enrolment")
        .then()
        .statusCode(401)
        .body("detail", containsString("needs a bootstrap credential"));
    NodeEnrolments.enrolment(
            "ident-join-6", "not a key", NodeEnrolments.joinToken("ident-join-6", 60))
        .then()
        .statusCode(400)
        .body("detail", containsString("node key"));
  }

  @Test
  void aForgedSpecAppliedCannotCompleteACanary() {
    List<FleetNodes.Node> fleet =
        List.of(
            new FleetNodes.Node(
                "ident-canary-1",
                HostKind.UBUNTU,
                "z1",
                "550.127.05",
                "H100-80GB",
                1,
                Map.of("identity-pool", "canary")),
            new FleetNodes.Node(
                "ident-canary-2",
                HostKind.UBUNTU,
                "z1",
                "550.127.05",
                "H100-80GB",
                1,
                Map.of("identity-pool", "canary")));
    Map<String, NodeEventSigner> keys = new java.util.HashMap<>();
    try (TopicClient topic = new TopicClient()) {
      for (FleetNodes.Node node : fleet) {
        NodeEventSigner key = NodeEnrolments.enroll(node.name());
        keys.put(node.name(), key);
        topic.publishSigned(Events.envelope(node.name(), 1, 0, FleetNodes.registered(node)), key);
        topic.publishSigned(Events.envelope(node.name(), 1, 1, FleetNodes.inventory(node)), key);
      }
      for (FleetNodes.Node node : fleet) {
        await()
            .atMost(BOUND)
            .until(() -> Arrays.equals(ProjectionRows.position(node.name()), new long[] {1, 1}));
      }
      String rollout = CanaryRollouts.startCanary("identity-canary", "identity-pool=canary", BOUND);
      // The canary is in flight once the engine logged it; its spec is saved a moment later.
      String canary =
          await("the canary's spec saved")
              .atMost(BOUND)
              .until(
                  () ->
                      fleet.stream()
                          .map(FleetNodes.Node::name)
                          .filter(
                              n ->
                                  given().get("/api/v1/nodes/" + n + "/spec").path("desired")
                                      != null)
                          .findFirst(),
                  Optional::isPresent)
              .orElseThrow();
      long generation = NodeActions.desiredGeneration(canary);
      String other =
          fleet.stream()
              .map(FleetNodes.Node::name)
              .filter(n -> !n.equals(canary))
              .findFirst()
              .orElseThrow();

      byte[] applied =
          EventCodec.encode(Events.envelope(canary, 1, 2, new SpecApplied(generation)));
      List<Expected> forgeries =
          List.of(
              new Expected(topic.publishRaw(canary, applied), "unsigned node event"),
              new Expected(
                  topic.publishRaw(
                      canary, applied, keys.get(other).keyId(), keys.get(other).sign(applied)),
                  "signed by another node's key"));
      awaitDeadLettered(topic, forgeries);
      // The engine read the same records from the head of the log before the projection
      // dead-lettered them, and did not take them as the canary's result.
      assertThat(counts(rollout).getInt("'in-flight'")).isEqualTo(1);
      assertThat(counts(rollout).getInt("succeeded")).isZero();
      assertThat(given().get("/api/v1/nodes/" + canary + "/spec").path("converged").toString())
          .isEqualTo("false");

      // The node's own SpecApplied completes it.
      topic.publishSigned(
          Events.envelope(canary, 1, 3, new SpecApplied(generation)), keys.get(canary));
      await().atMost(BOUND).until(() -> counts(rollout).getInt("succeeded") >= 1);
      given().post("/api/v1/rollouts/" + rollout + "/abort").then().statusCode(200);
    }
  }

  private static io.restassured.path.json.JsonPath counts(String rollout) {
    return ApiReads.ok("/api/v1/rollouts/" + rollout).setRootPath("progress.counts");
  }

  private static io.restassured.response.Response enroll(String node, String token) {
    return enroll(node, token, NodeEventSigner.generate());
  }

  private static io.restassured.response.Response enroll(
      String node, String token, NodeEventSigner key) {
    return NodeEnrolments.enrolment(node, key.publicKeyPem(), token);
  }

  private record Expected(RecordMetadata sent, String reason) {}

  /**
   * The headers {@code by} gives {@code value}, its MAC without the signature, under {@code as}'s
   * key id.
   */
  private static Map<String, String> macOnly(NodeEventSigner by, byte[] value, NodeEventSigner as) {
    Map<String, String> headers = new java.util.HashMap<>();
    by.addHeaders(value, headers::put);
    headers.remove(NodeEventSigner.SIGNATURE_HEADER);
    headers.put(NodeEventSigner.KEY_ID_HEADER, as.keyId());
    assertThat(headers).containsKey(NodeEventSigner.MAC_HEADER);
    return headers;
  }

  private static Envelope<NodeEvent> registered(String node, long seq, String driver) {
    return Events.envelope(
        node, 1, seq, Events.registered(node, HostKind.UBUNTU, driver, Map.of()));
  }

  private static Envelope<NodeEvent> retitled(Envelope<NodeEvent> envelope, String node) {
    return new Envelope<>(
        envelope.id(),
        envelope.source(),
        envelope.type(),
        node,
        envelope.time(),
        envelope.epoch(),
        envelope.seq(),
        envelope.data());
  }

  /**
   * Waits (bounded) until the node's genuine event after the forgeries (at 1.2) is applied and each
   * forgery is dead-lettered for its reason; the node still runs the driver it registered.
   */
  private static void awaitPastForgeries(TopicClient topic, String node, List<Expected> expected) {
    await()
        .atMost(BOUND)
        .until(() -> Arrays.equals(ProjectionRows.position(node), new long[] {1, 2}));
    awaitDeadLettered(topic, expected);
    given()
        .get("/api/v1/nodes/" + node)
        .then()
        .statusCode(200)
        .body("driverVersion", equalTo("580.95.05"));
  }

  /** Waits (bounded) until each expected record is on the dead-letter topic for its reason. */
  private static void awaitDeadLettered(TopicClient topic, List<Expected> expected) {
    await().atMost(BOUND).untilAsserted(() -> assertDeadLettered(topic.deadLetters(), expected));
  }

  private static void assertDeadLettered(
      List<ConsumerRecord<String, byte[]>> letters, List<Expected> expected) {
    for (Expected one : expected) {
      ConsumerRecord<String, byte[]> letter =
          DeadLetters.letterOf(letters, one.sent(), "'" + one.reason() + "'");
      assertThat(header(letter, Topics.DLQ_REASON_HEADER)).startsWith(one.reason());
    }
  }
}
