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
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Checks an agent's Kubernetes service-account token with the TokenReview API
 * (authentication.k8s.io/v1) and binds it to a node and to the agent DaemonSet: the token must be
 * authenticated, belong to one of the configured service accounts, and have been issued to a pod
 * (the {@code authentication.kubernetes.io/pod-name} and {@code pod-uid} that Kubernetes 1.30 and
 * later put in every pod-bound token) that the API server still has with that uid, in the service
 * account's namespace, on the node that enrolls ({@code spec.nodeName}), and controlled by one of
 * the agent DaemonSets ({@code fleetwave.node-identity.agent-daemon-sets}). So the agents' service
 * account used by any other workload, or a token taken from an agent on another node, enrolls
 * nothing. Reading the pod needs {@code get pods} in the agents' namespace, and nothing more. With
 * {@code fleetwave.node-identity.token-audiences} set, the review asks for those audiences and the
 * answer must grant one: only a token projected for Fleetwave enrolls, never one the API server
 * accepts.
 */
@ApplicationScoped
public class ServiceAccountReview {
  static final String NODE_NAME = "authentication.kubernetes.io/node-name";
  static final String POD_NAME = "authentication.kubernetes.io/pod-name";
  static final String POD_UID = "authentication.kubernetes.io/pod-uid";
  private static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

  private final Supplier<KubernetesClient> client;
  private final Set<String> accounts;
  private final List<String> audiences;
  private final AgentDaemonSets daemonSets;

  @Inject
  public ServiceAccountReview(Instance<KubernetesClient> client, NodeIdentityConfig config) {
    this(
        client::get,
        Set.copyOf(config.serviceAccounts().orElse(List.of())),
        config.tokenAudiences().orElse(List.of()),
        new AgentDaemonSets(config.agentDaemonSets()));
  }

  /** For a given client (the RBAC test drives it against the mock API server). */
  public ServiceAccountReview(
      Supplier<KubernetesClient> client,
      Set<String> accounts,
      List<String> audiences,
      AgentDaemonSets daemonSets) {
    this.client = client;
    this.accounts = Set.copyOf(accounts);
    this.audiences = List.copyOf(audiences);
    this.daemonSets = daemonSets;
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
    if (!audiences.isEmpty()) {
      // The API server authenticates a token for the audiences asked if it carries one of them,
      // and names those in status.audiences; the TokenReview API asks clients to check that, since
      // an authenticator that ignores audiences answers without them. A token without one of ours
      // (e.g. the pod's default token, for the API server) is one a thief could use elsewhere.
      List<String> granted =
          review.getStatus().getAudiences() == null ? List.of() : review.getStatus().getAudiences();
      if (granted.stream().noneMatch(audiences::contains)) {
        throw new EnrolmentRefusedException(
            "the service-account token is not for Fleetwave's enrolment: Kubernetes authenticated"
                + " it for "
                + granted
                + ", enrolment needs one of "
                + audiences
                + " (a projected token with that audience; fleetwave.node-identity.token-audiences)");
      }
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
    String tokenNode = first(extra, NODE_NAME);
    if (tokenNode == null) {
      throw new EnrolmentRefusedException(
          "the service-account token names no node (authentication.kubernetes.io/node-name): it"
              + " must be a pod's projected token, from Kubernetes 1.30 or later");
    }
    if (!tokenNode.equals(node)) {
      throw new EnrolmentRefusedException(
          "the service-account token was issued to a pod on node '"
              + tokenNode
              + "', not on '"
              + node
              + "'");
    }
    String podName = first(extra, POD_NAME);
    String podUid = first(extra, POD_UID);
    if (podName == null || podUid == null) {
      throw new EnrolmentRefusedException(
          "the service-account token names no pod (authentication.kubernetes.io/pod-name and"
              + " pod-uid): it must be a pod's projected token");
    }
    // system:serviceaccount:<namespace>:<name>; a pod uses service accounts of its own namespace.
    String namespace = account.substring(SERVICE_ACCOUNT_PREFIX.length()).split(":", 2)[0];
    String pod = namespace + "/" + podName;
    daemonSets.check(pod, podUid, node, readPod(kubernetes, namespace, podName));
    return "service account " + account + " (pod " + pod + ")";
  }

  private static Pod readPod(KubernetesClient kubernetes, String namespace, String name) {
    try {
      return kubernetes.pods().inNamespace(namespace).withName(name).get();
    } catch (KubernetesClientException e) {
      throw new IllegalStateException(
          "cannot read pod "
              + namespace
              + "/"
              + name
              + " from the Kubernetes API ("
              + e.getCode()
              + (e.getCode() == 403 ? ": the control plane needs get pods in " + namespace : "")
              + ")",
          e);
    }
  }

  private static String first(Map<String, List<String>> extra, String key) {
    List<String> values = extra.get(key);
    return values == null || values.isEmpty() ? null : values.getFirst();
  }
}
