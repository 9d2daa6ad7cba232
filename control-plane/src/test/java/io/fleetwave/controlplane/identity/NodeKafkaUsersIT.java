package io.fleetwave.controlplane.identity;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fleetwave.controlplane.fixtures.KubernetesInstall;
import io.fleetwave.controlplane.fixtures.NodeEnrolments;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.UserOperatorStandIn;
import io.fleetwave.embedded.KafkaAccess;
import io.fleetwave.events.security.NodeEventSigner;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.restassured.response.Response;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.KafkaUserAuthorizationSimple;
import io.strimzi.api.kafka.model.user.KafkaUserScramSha512ClientAuthentication;
import io.strimzi.api.kafka.model.user.acl.AclRule;
import io.strimzi.api.kafka.model.user.acl.AclRuleTopicResource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Each enrolled node gets a Kafka credential of its own: the control plane makes its Strimzi
 * KafkaUser (the fabric8 mock API server in CRUD mode stands for Kubernetes; the test plays the
 * User Operator, writing the user's Secret as Strimzi does, owned by the KafkaUser), waits for the
 * Secret and answers the enrolment with the SCRAM login; revoking the node deletes the user. In the
 * application of {@link KubernetesInstall} (secret-timeout 3 s, quotas other than the defaults),
 * without its {@link UserOperatorStandIn}: this test decides when a Secret is written.
 */
@QuarkusTest
@TestProfile(KubernetesInstall.class)
class NodeKafkaUsersIT {
  private static final String KAFKA = KubernetesInstall.KAFKA_NAMESPACE;
  private static final Duration BOUND = Duration.ofSeconds(30);

  @KubernetesTestServer KubernetesServer kubernetes;

  @Test
  void enrolmentMakesTheNodesKafkaUserAndAnswersWithItsCredential() throws Exception {
    String node = "kafka-user-node-1";
    String token = NodeEnrolments.joinToken(node, 600);
    CompletableFuture<Response> enrolment = enrollLater(node, token);

    KafkaUser user = awaitUser("fleetwave-node-" + node, enrolment);
    writeSecretAsTheUserOperator(user, "s3cr3t-of-node-1");

    Response answer = enrolment.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    answer
        .then()
        .statusCode(201)
        .body("kafka.username", equalTo("fleetwave-node-" + node))
        .body("kafka.password", equalTo("s3cr3t-of-node-1"))
        .body("kafka.mechanism", equalTo("SCRAM-SHA-512"));

    // Strimzi's own model reads back exactly what the control plane stored, nothing unknown.
    assertThat(user.getApiVersion()).isEqualTo("kafka.strimzi.io/v1");
    assertThat(user.getMetadata().getLabels()).containsEntry("strimzi.io/cluster", "fleetwave");
    assertThat(user.getMetadata().getAnnotations()).containsEntry("fleetwave.io/node", node);
    assertThat(user.getAdditionalProperties()).isEmpty();
    assertThat(user.getSpec().getAdditionalProperties()).isEmpty();
    assertThat(user.getSpec().getAuthentication())
        .isInstanceOf(KafkaUserScramSha512ClientAuthentication.class);
    assertThat(user.getSpec().getQuotas().getProducerByteRate()).isEqualTo(32768);
    assertThat(user.getSpec().getQuotas().getConsumerByteRate()).isEqualTo(524288);
    assertThat(user.getSpec().getQuotas().getRequestPercentage()).isEqualTo(7);
    assertThat(user.getSpec().getQuotas().getAdditionalProperties()).isEmpty();
    KafkaUserAuthorizationSimple simple =
        (KafkaUserAuthorizationSimple) user.getSpec().getAuthorization();
    assertThat(simple.getAcls()).allMatch(rule -> rule.getAdditionalProperties().isEmpty());
    assertThat(grants(simple.getAcls()))
        .as("the node's user grants exactly what an agent's code uses (KafkaAccess.AGENT)")
        .containsExactlyInAnyOrderElementsOf(
            KafkaAccess.AGENT.stream().map(KafkaAccess.Grant::strimzi).toList());

    given()
        .queryParam("actor", "join token " + token.substring(0, 6))
        .get("/api/v1/audit")
        .then()
        .statusCode(200)
        .body("items[0].outcome", containsString("Kafka user fleetwave-node-" + node))
        .body("items[0].outcome", org.hamcrest.Matchers.not(containsString("s3cr3t")));
  }

  /**
   * No Secret within the bound: a 503 that says what it waited for, no key enrolled, and the join
   * token not used up, so the agent's next try enrolls once the User Operator has written it.
   */
  @Test
  void withoutTheUsersSecretWithinTheBoundNothingIsEnrolled() throws Exception {
    String node = "kafka-user-node-2";
    String token = NodeEnrolments.joinToken(node, 600);
    NodeEventSigner key = NodeEventSigner.generate();

    enroll(node, token, key)
        .then()
        .statusCode(503)
        .header("Retry-After", org.hamcrest.Matchers.notNullValue())
        .body(
            "detail",
            containsString(
                "Strimzi's User Operator did not write the Secret kafka/fleetwave-node-"
                    + node
                    + " of the node's KafkaUser within PT3S"));
    assertThat(ProjectionRows.count("SELECT count(*) FROM node_keys WHERE node = '" + node + "'"))
        .as("no key half-enrolled")
        .isZero();

    writeSecretAsTheUserOperator(awaitUser("fleetwave-node-" + node), "s3cr3t-of-node-2");
    enroll(node, token, key)
        .then()
        .statusCode(201)
        .body("kafka.password", equalTo("s3cr3t-of-node-2"));
  }

  /** The Secret of a deleted earlier user of the same name is not handed out. */
  @Test
  void aSecretOfAnEarlierUserOfTheNameIsNotTheCredential() throws Exception {
    String node = "kafka-user-node-3";
    client()
        .secrets()
        .inNamespace(KAFKA)
        .resource(secret("fleetwave-node-" + node, "uid-of-a-deleted-user", "stale"))
        .create();
    enroll(node, NodeEnrolments.joinToken(node, 600), NodeEventSigner.generate())
        .then()
        .statusCode(503)
        .body("detail", containsString("did not write the Secret"));
  }

  @Test
  void revokingTheNodeDeletesItsKafkaUserAndReadmissionLetsItEnrollAgain() throws Exception {
    String node = "kafka-user-node-4";
    CompletableFuture<Response> first = enrollLater(node, NodeEnrolments.joinToken(node, 600));
    writeSecretAsTheUserOperator(awaitUser("fleetwave-node-" + node, first), "first");
    first.get(BOUND.toSeconds(), TimeUnit.SECONDS).then().statusCode(201);

    given()
        .delete("/api/v1/nodes/" + node + "/enrolment")
        .then()
        .statusCode(200)
        .body("kafkaUserDeleted", equalTo(true));
    assertThat(user("fleetwave-node-" + node)).as("the revoked node's KafkaUser").isNull();

    // Its Secret goes with the user (Kubernetes' garbage collector; the mock has none).
    client().secrets().inNamespace(KAFKA).withName("fleetwave-node-" + node).delete();
    given().post("/api/v1/nodes/" + node + "/enrolment/readmission").then().statusCode(200);
    CompletableFuture<Response> again = enrollLater(node, NodeEnrolments.joinToken(node, 600));
    writeSecretAsTheUserOperator(awaitUser("fleetwave-node-" + node, again), "second");
    again
        .get(BOUND.toSeconds(), TimeUnit.SECONDS)
        .then()
        .statusCode(201)
        .body("kafka.password", equalTo("second"));
  }

  @Test
  void aLongNodeNameGetsABoundedUserNameOfItsOwn() {
    String longName = "gpu-" + "a".repeat(70) + ".rack-17.example.com";
    String other = "gpu-" + "a".repeat(70) + ".rack-18.example.com";
    assertThat(NodeKafkaUser.nameOf(longName)).hasSizeLessThanOrEqualTo(63);
    assertThat(NodeKafkaUser.nameOf(longName)).isNotEqualTo(NodeKafkaUser.nameOf(other));
    assertThat(NodeKafkaUser.nameOf(longName)).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    // A short name that looks like a shortened one is shortened too, so no two nodes collide.
    String lookalike = NodeKafkaUser.nameOf(longName).substring("fleetwave-node-".length());
    assertThat(NodeKafkaUser.nameOf(lookalike)).isNotEqualTo(NodeKafkaUser.nameOf(longName));
    assertThat(NodeKafkaUser.nameOf("gpu-17")).isEqualTo("fleetwave-node-gpu-17");
  }

  private static List<String> grants(List<AclRule> rules) {
    return rules.stream()
        .flatMap(
            rule -> {
              AclRuleTopicResource topic = (AclRuleTopicResource) rule.getResource();
              return rule.getOperations().stream()
                  .map(
                      op ->
                          "topic "
                              + topic.getPatternType().toValue()
                              + " "
                              + topic.getName()
                              + " "
                              + op.toValue());
            })
        .toList();
  }

  /**
   * The enrolment, started on a thread of its own (with the test's class loader, which Quarkus'
   * test classes need), so that the test can play the User Operator while it waits.
   */
  private CompletableFuture<Response> enrollLater(String node, String token) {
    NodeEventSigner key = NodeEventSigner.generate();
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    CompletableFuture<Response> answer = new CompletableFuture<>();
    Thread.ofPlatform()
        .start(
            () -> {
              Thread.currentThread().setContextClassLoader(loader);
              try {
                answer.complete(enroll(node, token, key));
              } catch (RuntimeException | Error e) {
                answer.completeExceptionally(e);
              }
            });
    return answer;
  }

  private static Response enroll(String node, String token, NodeEventSigner key) {
    return NodeEnrolments.enrolment(node, key.publicKeyPem(), token);
  }

  /**
   * The KafkaUser as stored, read with Strimzi's model as the User Operator reads it (a field the
   * model does not know would land in its additional properties).
   */
  private KafkaUser awaitUser(String name) {
    return awaitUser(name, null);
  }

  /** As {@link #awaitUser(String)}, failing at once if the enrolment ends before it is made. */
  private KafkaUser awaitUser(String name, CompletableFuture<Response> enrolment) {
    return await("KafkaUser " + name + " made by the enrolment")
        .atMost(BOUND)
        .until(
            () -> {
              KafkaUser user = user(name);
              if (user == null && enrolment != null && enrolment.isDone()) {
                throw new AssertionError(
                    "the enrolment ended without making the KafkaUser: "
                        + enrolment.join().asString());
              }
              return user;
            },
            java.util.Objects::nonNull);
  }

  private KafkaUser user(String name) {
    return client().resources(KafkaUser.class).inNamespace(KAFKA).withName(name).get();
  }

  /** As Strimzi's User Operator writes it: named after the user, owned by it, with the password. */
  private void writeSecretAsTheUserOperator(KafkaUser user, String password) {
    client()
        .secrets()
        .inNamespace(KAFKA)
        .resource(secret(user.getMetadata().getName(), user.getMetadata().getUid(), password))
        .create();
  }

  private static Secret secret(String name, String ownerUid, String password) {
    return UserOperatorStandIn.secret(KAFKA, name, ownerUid, password);
  }

  private KubernetesClient client() {
    return kubernetes.getClient();
  }
}
