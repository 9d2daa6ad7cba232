package io.fleetwave.controlplane.identity;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fleetwave.controlplane.fixtures.AgentPods;
import io.fleetwave.controlplane.fixtures.KubernetesInstall;
import io.fleetwave.controlplane.fixtures.NodeEnrolments;
import io.fleetwave.controlplane.fixtures.UserOperatorStandIn;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.security.NodeEventSigner;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.restassured.response.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Enrolment with the agent pod's service-account token: the control plane asks Kubernetes'
 * TokenReview API (the fabric8 mock server, answering per token as an API server would) and binds
 * the token to the node its pod runs on and to the agent DaemonSet, reading the pod from the API
 * server (the mock in CRUD mode, holding the pods each test runs). In the application of {@link
 * KubernetesInstall}, so each enrolment also waits for its node's Kafka Secret, which {@link
 * UserOperatorStandIn} writes.
 */
@QuarkusTest
@TestProfile(KubernetesInstall.class)
class ServiceAccountEnrolmentIT {
  private static final String AGENTS = "fleetwave-agents";
  private static final String AGENT = KubernetesInstall.AGENT_ACCOUNT;

  /**
   * What the API server knows of a token: its service account, and the node, pod and pod uid it was
   * bound to (a null uid: the uid that pod has now).
   */
  record Token(String account, String node, String pod, String uid) {}

  @KubernetesTestServer KubernetesServer kubernetes;

  private UserOperatorStandIn userOperator;

  /**
   * Each pod's uid as the API server assigned it: the TokenReview answer reads it here, since it
   * runs on the mock server's own event loop and may not call that server.
   */
  private static final Map<String, String> UIDS = new ConcurrentHashMap<>();

  private static final Map<String, Token> TOKENS =
      Map.ofEntries(
          Map.entry("token-of-pod-on-sa-node-1", new Token(AGENT, "sa-node-1", "agent-a", null)),
          Map.entry("token-of-pod-on-sa-node-2", new Token(AGENT, "sa-node-2", "agent-b", null)),
          Map.entry("token-of-pod-on-sa-node-4", new Token(AGENT, "sa-node-4", "agent-d", null)),
          Map.entry(
              "token-of-another-account",
              new Token("system:serviceaccount:default:builder", "sa-node-1", "builder", null)),
          Map.entry("token-without-node", new Token(AGENT, null, "agent-c", null)),
          // The agents' service account mounted by another workload on an agent's node.
          Map.entry(
              "token-of-another-workload-on-sa-node-5",
              new Token(AGENT, "sa-node-5", "debug-7f9c", null)),
          // The token says sa-node-5; the pod it names runs on sa-node-6.
          Map.entry("token-of-pod-on-another-node", new Token(AGENT, "sa-node-5", "agent-f", null)),
          Map.entry(
              "token-of-an-earlier-pod",
              new Token(AGENT, "sa-node-5", "agent-e", "uid-of-the-pod-deleted-before")),
          Map.entry("token-of-a-pod-gone", new Token(AGENT, "sa-node-5", "agent-gone", null)));

  @BeforeEach
  void apiServer() {
    userOperator =
        new UserOperatorStandIn(kubernetes.getClient(), KubernetesInstall.KAFKA_NAMESPACE);
    kubernetes
        .expect()
        .post()
        .withPath("/apis/authentication.k8s.io/v1/tokenreviews")
        .andReply(201, request -> review(request.getUtf8Body()))
        .always();
    pod("agent-a", "sa-node-1", "DaemonSet", "fleetwave-agent-ubuntu");
    pod("agent-b", "sa-node-2", "DaemonSet", "fleetwave-agent-talos");
    pod("agent-c", "sa-node-3", "DaemonSet", "fleetwave-agent-ubuntu");
    pod("agent-d", "sa-node-4", "DaemonSet", "fleetwave-agent-cos");
    pod("agent-e", "sa-node-5", "DaemonSet", "fleetwave-agent-ubuntu");
    pod("agent-f", "sa-node-6", "DaemonSet", "fleetwave-agent-ubuntu");
    pod("debug-7f9c", "sa-node-5", "ReplicaSet", "debug-5d8f");
  }

  @AfterEach
  void stopUserOperator() {
    userOperator.close();
  }

  /** A pod in the agents' namespace, its controller as Kubernetes sets it. */
  private void pod(String name, String node, String controllerKind, String controller) {
    Pod pod = AgentPods.controlledBy(AGENTS, name, null, node, controllerKind, controller);
    Pod stored =
        kubernetes
            .getClient()
            .pods()
            .inNamespace(AGENTS)
            .resource(pod)
            .createOr(NonDeletingOperation::update);
    UIDS.put(name, stored.getMetadata().getUid());
  }

  /**
   * Issue 32 finding 7: the agents' service account is only as good as the pods that mount it. A
   * token of another workload's pod on the node, or naming a pod that runs elsewhere, that is gone
   * or that was replaced, enrolls nothing.
   */
  @Test
  void onlyATokenOfTheAgentDaemonSetsPodOnTheNodeEnrollsIt() {
    enroll("sa-node-5", "token-of-another-workload-on-sa-node-5")
        .then()
        .statusCode(401)
        .body(
            "detail",
            equalTo(
                "pod fleetwave-agents/debug-7f9c is not a node agent: its controller is ReplicaSet"
                    + " debug-5d8f, not one of the DaemonSets [fleetwave-agent-*]"
                    + " (fleetwave.node-identity.agent-daemon-sets)"));
    enroll("sa-node-5", "token-of-pod-on-another-node")
        .then()
        .statusCode(401)
        .body(
            "detail",
            equalTo("pod fleetwave-agents/agent-f runs on node 'sa-node-6', not on 'sa-node-5'"));
    enroll("sa-node-5", "token-of-an-earlier-pod")
        .then()
        .statusCode(401)
        .body(
            "detail",
            equalTo(
                "the service-account token was issued to an earlier pod fleetwave-agents/agent-e"
                    + " (uid uid-of-the-pod-deleted-before), not to the one running now"));
    enroll("sa-node-5", "token-of-a-pod-gone")
        .then()
        .statusCode(401)
        .body(
            "detail",
            equalTo(
                "the service-account token was issued to pod fleetwave-agents/agent-gone, which"
                    + " does not exist"));
  }

  @Test
  void aPodsTokenEnrollsTheNodeItRunsOnAndNoOther() {
    enroll("sa-node-1", "token-of-pod-on-sa-node-1")
        .then()
        .statusCode(201)
        .body("credential", equalTo("service account " + AGENT + " (pod fleetwave-agents/agent-a)"))
        .body("kafka.username", equalTo("fleetwave-node-sa-node-1"));
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
    NodeEnrolments.enrolment(
            node, NodeEventSigner.generate().publicKeyPem(), NodeEnrolments.joinToken(node, 600))
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
      Token token = TOKENS.get(request.at("/spec/token").asText());
      if (token == null) {
        return new TokenReviewBuilder()
            .withNewStatus()
            .withAuthenticated(false)
            .withError("[invalid bearer token, token has expired]")
            .endStatus()
            .build();
      }
      return authenticated(token);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The review of a pod-bound token, with the extras kube-apiserver 1.30+ puts in it. */
  private static TokenReview authenticated(Token token) {
    Map<String, List<String>> extra = new HashMap<>();
    if (token.node() != null) {
      extra.put("authentication.kubernetes.io/node-name", List.of(token.node()));
    }
    String uid =
        token.uid() != null ? token.uid() : UIDS.getOrDefault(token.pod(), "uid-of-" + token.pod());
    extra.put("authentication.kubernetes.io/pod-name", List.of(token.pod()));
    extra.put("authentication.kubernetes.io/pod-uid", List.of(uid));
    return new TokenReviewBuilder()
        .withNewStatus()
        .withAuthenticated(true)
        .withNewUser()
        .withUsername(token.account())
        .withExtra(extra)
        .endUser()
        .endStatus()
        .build();
  }
}
