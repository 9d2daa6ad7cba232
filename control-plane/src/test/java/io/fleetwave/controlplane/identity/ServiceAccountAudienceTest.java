package io.fleetwave.controlplane.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fleetwave.controlplane.fixtures.AgentPods;
import io.fleetwave.events.codec.EventCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Only a token projected for Fleetwave's enrolment enrolls: the review asks the API server for the
 * configured audience (spec.audiences) and accepts only an answer that grants it
 * (status.audiences). The mock answers as kube-apiserver does: a token is authenticated for the
 * audiences asked that it carries, or, when none are asked, for the API server's own.
 */
class ServiceAccountAudienceTest {
  private static final String AGENT = "system:serviceaccount:fleetwave-agents:fleetwave-agent";
  private static final String ENROLMENT = "fleetwave-enrolment";
  private static final String API_SERVER = "https://kubernetes.default.svc.cluster.local";
  private static final Duration BOUND = Duration.ofSeconds(20);
  private static final String POD = "fleetwave-agent-ubuntu-x7k2p";
  private static final String POD_UID = "0d9a4f3e-6b1c-4e58-9f2a-7c3b5d8e1a60";

  /** The audiences each token was issued for. */
  private static final Map<String, List<String>> TOKENS =
      Map.of(
          "projected-enrolment-token", List.of(ENROLMENT),
          "default-pod-token", List.of(API_SERVER),
          // An authenticator that ignores audiences: authenticated, no audience named.
          "audience-blind-token", List.of());

  private KubernetesMockServer server;
  private KubernetesClient client;

  @BeforeEach
  void apiServer() {
    server = new KubernetesMockServer(false);
    server.init();
    server
        .expect()
        .post()
        .withPath("/apis/authentication.k8s.io/v1/tokenreviews")
        .andReply(201, request -> review(request.getUtf8Body()))
        .always();
    server
        .expect()
        .get()
        .withPath("/api/v1/namespaces/fleetwave-agents/pods/" + POD)
        .andReturn(200, agentPod())
        .always();
    client = server.createClient();
  }

  @AfterEach
  void stop() {
    client.close();
    server.destroy();
  }

  /** Whom the review, asking for the enrolment audience, finds behind the token of node gpu-1. */
  private String reviewed(String token) {
    return new ServiceAccountReview(
            () -> client,
            Set.of(AGENT),
            List.of(ENROLMENT),
            new AgentDaemonSets(List.of("fleetwave-agent-*")))
        .nodeOf(token, "gpu-1")
        .await()
        .atMost(BOUND);
  }

  /** The agent pod the tokens were issued to. */
  static Pod agentPod() {
    return AgentPods.controlledBy(
        "fleetwave-agents", POD, POD_UID, "gpu-1", "DaemonSet", "fleetwave-agent-ubuntu");
  }

  @Test
  void aTokenProjectedForTheEnrolmentAudienceEnrolls() {
    assertThat(reviewed("projected-enrolment-token"))
        .isEqualTo("service account " + AGENT + " (pod fleetwave-agents/" + POD + ")");
  }

  @Test
  void thePodsDefaultTokenForTheApiServerIsRefused() {
    assertThatThrownBy(() -> reviewed("default-pod-token"))
        .isInstanceOf(EnrolmentRefusedException.class)
        .hasMessageContaining("Kubernetes did not authenticate");
  }

  @Test
  void anAnswerThatGrantsNoneOfTheAudiencesAskedIsRefused() {
    assertThatThrownBy(() -> reviewed("audience-blind-token"))
        .isInstanceOf(EnrolmentRefusedException.class)
        .hasMessageContaining("not for Fleetwave's enrolment")
        .hasMessageContaining("[" + ENROLMENT + "]");
  }

  /** kube-apiserver's answer for the token and the audiences in the request. */
  private static TokenReview review(String body) {
    JsonNode request;
    try {
      request = EventCodec.mapper().readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> issuedFor = TOKENS.get(request.at("/spec/token").asText());
    List<String> asked = new ArrayList<>();
    request.at("/spec/audiences").forEach(a -> asked.add(a.asText()));
    if (issuedFor == null) {
      return refused("invalid bearer token");
    }
    List<String> granted;
    if (issuedFor.isEmpty()) {
      granted = List.of();
    } else {
      List<String> wanted = asked.isEmpty() ? List.of(API_SERVER) : asked;
      granted = wanted.stream().filter(issuedFor::contains).toList();
      if (granted.isEmpty()) {
        return refused("token audiences " + issuedFor + " is invalid for the target audiences");
      }
    }
    return new TokenReviewBuilder()
        .withNewStatus()
        .withAuthenticated(true)
        .withAudiences(granted)
        .withNewUser()
        .withUsername(AGENT)
        .withExtra(
            Map.of(
                "authentication.kubernetes.io/node-name", List.of("gpu-1"),
                "authentication.kubernetes.io/pod-name", List.of(POD),
                "authentication.kubernetes.io/pod-uid", List.of(POD_UID)))
        .endUser()
        .endStatus()
        .build();
  }

  private static TokenReview refused(String error) {
    return new TokenReviewBuilder()
        .withNewStatus()
        .withAuthenticated(false)
        .withError(error)
        .endStatus()
        .build();
  }
}
