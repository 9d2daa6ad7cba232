package io.fleetwave.controlplane.identity;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fleetwave.controlplane.fixtures.NodeEnrolments;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.security.NodeEventSigner;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.restassured.response.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Enrolment with the agent pod's service-account token: the control plane asks Kubernetes'
 * TokenReview API (the fabric8 mock server, answering per token as an API server would) and binds
 * the token to the node its pod runs on.
 */
@QuarkusTest
@WithKubernetesTestServer
@TestProfile(ServiceAccountEnrolmentIT.ServiceAccounts.class)
class ServiceAccountEnrolmentIT {
  private static final String AGENT = "system:serviceaccount:fleetwave:fleetwave-agent";

  public static class ServiceAccounts implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "fleetwave.node-identity.required",
          "true",
          "fleetwave.node-identity.service-accounts",
          AGENT);
    }
  }

  @KubernetesTestServer KubernetesServer kubernetes;

  /** What the API server knows of each token the tests present. */
  private static final Map<String, TokenReview> REVIEWS =
      Map.of(
          "token-of-pod-on-sa-node-1",
          authenticated(
              AGENT,
              Map.of(
                  "authentication.kubernetes.io/node-name",
                  "sa-node-1",
                  "authentication.kubernetes.io/pod-name",
                  "agent-a")),
          "token-of-pod-on-sa-node-2",
          authenticated(AGENT, Map.of("authentication.kubernetes.io/node-name", "sa-node-2")),
          "token-of-pod-on-sa-node-4",
          authenticated(AGENT, Map.of("authentication.kubernetes.io/node-name", "sa-node-4")),
          "token-of-another-account",
          authenticated(
              "system:serviceaccount:default:builder",
              Map.of("authentication.kubernetes.io/node-name", "sa-node-1")),
          "token-without-node",
          authenticated(AGENT, Map.of("authentication.kubernetes.io/pod-name", "agent-c")));

  @BeforeEach
  void apiServer() {
    kubernetes
        .expect()
        .post()
        .withPath("/apis/authentication.k8s.io/v1/tokenreviews")
        .andReply(201, request -> review(request.getUtf8Body()))
        .always();
  }

  @Test
  void aPodsTokenEnrollsTheNodeItRunsOnAndNoOther() {
    enroll("sa-node-1", "token-of-pod-on-sa-node-1")
        .then()
        .statusCode(201)
        .body("credential", equalTo("service account " + AGENT + " (pod agent-a)"));
    enroll("sa-node-9", "token-of-pod-on-sa-node-1")
        .then()
        .statusCode(401)
        .body(
            "detail",
            equalTo(
                "the service-account token was issued to a pod on node 'sa-node-1', not on"
                    + " 'sa-node-9'"));
  }

  @Test
  void aKeyEnrolledForOneNodeCannotBeEnrolledForAnother() {
    NodeEventSigner key = NodeEventSigner.generate();
    enroll("sa-node-2", "token-of-pod-on-sa-node-2", key)
        .then()
        .statusCode(201)
        .body("keyId", equalTo(key.keyId()));
    enroll("sa-node-1", "token-of-pod-on-sa-node-1", key)
        .then()
        .statusCode(401)
        .body("detail", containsString("is enrolled by another node"));
  }

  /**
   * Issue 32 finding 2: a revoked node does not come back by enrolling a new key, neither with its
   * pod's service-account token nor with a join token, until an admin re-admits it.
   */
  @Test
  void aRevokedNodeEnrollsWithNoCredentialUntilAnAdminReadmitsIt() {
    String node = "sa-node-4";
    enroll(node, "token-of-pod-on-sa-node-4").then().statusCode(201);
    given().delete("/api/v1/nodes/" + node + "/enrolment").then().statusCode(200);

    enroll(node, "token-of-pod-on-sa-node-4")
        .then()
        .statusCode(401)
        .body("detail", containsString("node '" + node + "' was revoked at"));
    given()
        .contentType("application/json")
        .body(
            Map.of(
                "publicKey",
                NodeEventSigner.generate().publicKeyPem(),
                "joinToken",
                NodeEnrolments.joinToken(node, 600)))
        .post("/api/v1/nodes/" + node + "/enrolment")
        .then()
        .statusCode(401)
        .body("detail", containsString("node '" + node + "' was revoked at"));

    given().post("/api/v1/nodes/" + node + "/enrolment/readmission").then().statusCode(200);
    enroll(node, "token-of-pod-on-sa-node-4").then().statusCode(201);
  }

  @Test
  void tokensKubernetesRefusesOrOfOtherAccountsOrNotBoundToAPodEnrollNothing() {
    enroll("sa-node-3", "token-kubernetes-does-not-know")
        .then()
        .statusCode(401)
        .body("detail", startsWith("Kubernetes did not authenticate the service-account token"))
        .body("detail", containsString("token has expired"));
    enroll("sa-node-1", "token-of-another-account")
        .then()
        .statusCode(401)
        .body("detail", startsWith("service account 'system:serviceaccount:default:builder'"));
    enroll("sa-node-3", "token-without-node")
        .then()
        .statusCode(401)
        .body("detail", containsString("names no node"));
  }

  private static Response enroll(String node, String token) {
    return enroll(node, token, NodeEventSigner.generate());
  }

  private static Response enroll(String node, String token, NodeEventSigner key) {
    return given()
        .contentType("application/json")
        .body(Map.of("publicKey", key.publicKeyPem(), "serviceAccountToken", token))
        .post("/api/v1/nodes/" + node + "/enrolment");
  }

  private static TokenReview review(String body) {
    try {
      JsonNode request = EventCodec.mapper().readTree(body);
      String token = request.at("/spec/token").asText();
      return REVIEWS.getOrDefault(
          token,
          new TokenReviewBuilder()
              .withNewStatus()
              .withAuthenticated(false)
              .withError("[invalid bearer token, token has expired]")
              .endStatus()
              .build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static TokenReview authenticated(String user, Map<String, String> extra) {
    Map<String, List<String>> lists = new java.util.HashMap<>();
    extra.forEach((key, value) -> lists.put(key, List.of(value)));
    return new TokenReviewBuilder()
        .withNewStatus()
        .withAuthenticated(true)
        .withNewUser()
        .withUsername(user)
        .withExtra(lists)
        .endUser()
        .endStatus()
        .build();
  }
}
