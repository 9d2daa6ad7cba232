package io.fleetwave.agent.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A refused service-account enrolment names Kubernetes 1.30+ and the API server's version exactly
 * when the pod's token names no node. The tokens' claims are those the API server writes: a 1.29
 * pod token (kubernetes.io.pod and .serviceaccount) and a 1.30+ one (.node added).
 */
public class NodeNameClaimTest {
  private final EnrolmentRefusedException refusal =
      new EnrolmentRefusedException(
          "the control plane at http://cp:8080 refused to enroll node 'gpu-7' (403): the"
              + " service-account token names no node (authentication.kubernetes.io/node-name): it"
              + " must be a pod's projected token, from Kubernetes 1.30 or later");

  public static String token(String kubernetesClaim) {
    Base64.Encoder url = Base64.getUrlEncoder().withoutPadding();
    String claims =
        "{\"aud\":[\"https://kubernetes.default.svc\"],\"exp\":1764882000,"
            + "\"iss\":\"https://kubernetes.default.svc\","
            + "\"sub\":\"system:serviceaccount:fleetwave:fleetwave-agent\","
            + "\"kubernetes.io\":"
            + kubernetesClaim
            + "}";
    return url.encodeToString("{\"alg\":\"RS256\",\"kid\":\"k1\"}".getBytes(StandardCharsets.UTF_8))
        + "."
        + url.encodeToString(claims.getBytes(StandardCharsets.UTF_8))
        + ".c2lnbmF0dXJl";
  }

  public static final String POD_TOKEN_1_29 =
      token(
          "{\"namespace\":\"fleetwave\",\"pod\":{\"name\":\"fleetwave-agent-x7k2p\",\"uid\":\"p-1\"},"
              + "\"serviceaccount\":{\"name\":\"fleetwave-agent\",\"uid\":\"s-1\"}}");
  public static final String POD_TOKEN_1_30 =
      token(
          "{\"namespace\":\"fleetwave\",\"node\":{\"name\":\"gpu-7\",\"uid\":\"n-1\"},"
              + "\"pod\":{\"name\":\"fleetwave-agent-x7k2p\",\"uid\":\"p-1\"},"
              + "\"serviceaccount\":{\"name\":\"fleetwave-agent\",\"uid\":\"s-1\"}}");

  @Test
  void aTokenWithoutTheNodeClaimNamesTheRequirementAndTheApiServersVersion() {
    EnrolmentRefusedException explained =
        NodeNameClaim.explain(refusal, POD_TOKEN_1_29, () -> "the API server is v1.29.4");

    assertThat(explained.getMessage())
        .startsWith(refusal.getMessage())
        .contains(
            ". Service-account enrolment needs Kubernetes 1.30 or later: this pod's token names"
                + " no node (claim kubernetes.io.node.name,")
        .contains("and the API server is v1.29.4. Upgrade the cluster to 1.30 or later, or enroll")
        .endsWith("with a join token (--join-token-file or FLEETWAVE_JOIN_TOKEN).");
    assertThat(explained).hasCause(refusal);
  }

  @Test
  void aTokenThatNamesItsNodeLeavesTheRefusalAsItCameAndAsksNoVersion() {
    AtomicInteger asked = new AtomicInteger();
    Supplier<String> version =
        () -> {
          asked.incrementAndGet();
          return "the API server is v1.31.0";
        };

    assertThat(NodeNameClaim.explain(refusal, POD_TOKEN_1_30, version)).isSameAs(refusal);
    assertThat(NodeNameClaim.explain(refusal, "opaque-token", version))
        .as("not a JWT: nothing to tell")
        .isSameAs(refusal);
    assertThat(NodeNameClaim.explain(refusal, "a.!!not-base64!!.c", version)).isSameAs(refusal);
    assertThat(asked).hasValue(0);
  }
}
