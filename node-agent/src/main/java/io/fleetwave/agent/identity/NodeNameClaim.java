package io.fleetwave.agent.identity;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.events.codec.EventCodec;
import java.io.IOException;
import java.util.Base64;
import java.util.function.Supplier;

/**
 * Service-account enrolment's one requirement on Kubernetes: the pod's token must name the node the
 * pod runs on (claim {@code kubernetes.io.node.name}; TokenReview then tells the control plane
 * {@code authentication.kubernetes.io/node-name}). The API server writes it into pod tokens from
 * Kubernetes 1.30 (feature ServiceAccountTokenPodNodeInfo: alpha and off in 1.29, beta and on from
 * 1.30, GA in 1.32); on 1.27-1.29 the control plane refuses every agent. The agent reads the claim
 * only to say so when it is refused: the token's signature and the claim are the control plane's to
 * check, and it still does.
 */
public final class NodeNameClaim {
  public static final String REQUIREMENT = "Kubernetes 1.30 or later";

  private NodeNameClaim() {}

  /** Whether the token (a JWT) names a node; a token that is no JWT counts as naming one. */
  static boolean namesANode(String token) {
    String[] parts = token.strip().split("\\.", -1);
    if (parts.length != 3) {
      return true; // not a JWT: nothing this class can tell about it
    }
    try {
      JsonNode claims = EventCodec.mapper().readTree(Base64.getUrlDecoder().decode(parts[1]));
      JsonNode name = claims.path("kubernetes.io").path("node").path("name");
      return name.isTextual() && !name.asText().isBlank();
    } catch (IOException | IllegalArgumentException e) {
      return true; // unreadable: the control plane's own reason stands alone
    }
  }

  /**
   * The refusal, with the Kubernetes requirement and the API server's version when the pod's token
   * names no node; else the refusal as it came.
   *
   * @param apiServer the API server's version in words, asked only when it is needed
   */
  public static EnrolmentRefusedException explain(
      EnrolmentRefusedException refusal, String token, Supplier<String> apiServer) {
    if (namesANode(token)) {
      return refusal;
    }
    EnrolmentRefusedException explained =
        new EnrolmentRefusedException(
            refusal.getMessage()
                + ". Service-account enrolment needs "
                + REQUIREMENT
                + ": this pod's token names no node (claim kubernetes.io.node.name, which the API"
                + " server writes into pod tokens from 1.30 on, feature"
                + " ServiceAccountTokenPodNodeInfo), and "
                + apiServer.get()
                + ". Upgrade the cluster to 1.30 or later, or enroll with a join token"
                + " (--join-token-file or FLEETWAVE_JOIN_TOKEN).");
    explained.initCause(refusal);
    return explained;
  }
}
