package io.fleetwave.controlplane.identity;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fleetwave.controlplane.config.NodeIdentityConfig;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks an agent's Kubernetes service-account token with the TokenReview API
 * (authentication.k8s.io/v1) and binds it to a node: the token must be authenticated, belong to one
 * of the configured service accounts, and have been issued to a pod that runs on the node that
 * enrolls. The node comes from the token itself ({@code authentication.kubernetes.io/node-name},
 * set by Kubernetes 1.30 and later for pod-bound tokens), else from the pod the token names.
 */
@ApplicationScoped
public class ServiceAccountReview {
  static final String NODE_NAME = "authentication.kubernetes.io/node-name";
  static final String POD_NAME = "authentication.kubernetes.io/pod-name";
  private static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

  private final Instance<KubernetesClient> client;
  private final Set<String> accounts;
  private final List<String> audiences;

  public ServiceAccountReview(Instance<KubernetesClient> client, NodeIdentityConfig config) {
    this.client = client;
    this.accounts = Set.copyOf(config.serviceAccounts().orElse(List.of()));
    this.audiences = config.tokenAudiences().orElse(List.of());
  }

  /**
   * The credential as node_keys records it ({@code service account NAME (pod NS/POD)}).
   *
   * @throws EnrolmentRefusedException (failed Uni) naming why the token does not enroll the node
   */
  public Uni<String> nodeOf(String token, String node) {
    if (accounts.isEmpty()) {
      return Uni.createFrom()
          .failure(
              new EnrolmentRefusedException(
                  "service-account enrolment is off: no service account is allowed"
                      + " (fleetwave.node-identity.service-accounts); use a join token"));
    }
    // fabric8 blocks: off the event loop.
    return Uni.createFrom()
        .item(() -> review(token, node))
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
  }

  private String review(String token, String node) {
    KubernetesClient kubernetes = client.get();
    TokenReview review;
    try {
      review =
          kubernetes
              .authentication()
              .v1()
              .tokenReviews()
              .create(
                  new TokenReviewBuilder()
                      .withNewSpec()
                      .withToken(token)
                      .withAudiences(audiences.isEmpty() ? null : audiences)
                      .endSpec()
                      .build());
    } catch (KubernetesClientException e) {
      throw new IllegalStateException(
          "the Kubernetes TokenReview API did not answer (" + e.getCode() + ")", e);
    }
    if (review.getStatus() == null || !Boolean.TRUE.equals(review.getStatus().getAuthenticated())) {
      String error = review.getStatus() == null ? null : review.getStatus().getError();
      throw new EnrolmentRefusedException(
          "Kubernetes did not authenticate the service-account token"
              + (error == null || error.isBlank() ? "" : ": " + error));
    }
    UserInfo user = review.getStatus().getUser();
    String account = user == null ? null : user.getUsername();
    if (account == null || !accounts.contains(account)) {
      throw new EnrolmentRefusedException(
          "service account '"
              + account
              + "' may not enroll nodes (allowed: "
              + String.join(", ", accounts.stream().sorted().toList())
              + ")");
    }
    if (!account.startsWith(SERVICE_ACCOUNT_PREFIX)) {
      throw new EnrolmentRefusedException("'" + account + "' is not a service account");
    }
    Map<String, List<String>> extra = user.getExtra() == null ? Map.of() : user.getExtra();
    String pod = first(extra, POD_NAME);
    String tokenNode = first(extra, NODE_NAME);
    if (tokenNode == null && pod != null) {
      tokenNode = nodeOfPod(kubernetes, namespaceOf(account), pod);
    }
    if (tokenNode == null) {
      throw new EnrolmentRefusedException(
          "the service-account token is not bound to a pod (use a projected, pod-bound token),"
              + " so it cannot prove which node it runs on");
    }
    if (!tokenNode.equals(node)) {
      throw new EnrolmentRefusedException(
          "the service-account token was issued to a pod on node '"
              + tokenNode
              + "', not on '"
              + node
              + "'");
    }
    return "service account " + account + (pod == null ? "" : " (pod " + pod + ")");
  }

  private static String nodeOfPod(KubernetesClient kubernetes, String namespace, String name) {
    Pod pod = kubernetes.pods().inNamespace(namespace).withName(name).get();
    return pod == null || pod.getSpec() == null ? null : pod.getSpec().getNodeName();
  }

  private static String namespaceOf(String account) {
    String rest = account.substring(SERVICE_ACCOUNT_PREFIX.length());
    int colon = rest.indexOf(':');
    return colon < 0 ? rest : rest.substring(0, colon);
  }

  private static String first(Map<String, List<String>> extra, String key) {
    List<String> values = extra.get(key);
    return values == null || values.isEmpty() ? null : values.getFirst();
  }
}
