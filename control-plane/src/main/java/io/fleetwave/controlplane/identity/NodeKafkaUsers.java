package io.fleetwave.controlplane.identity;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fleetwave.controlplane.config.NodeIdentityConfig;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.strimzi.api.kafka.model.user.KafkaUser;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Each enrolled node's own Kafka credential ({@code fleetwave.node-identity.kafka-users.*}): a
 * Strimzi KafkaUser made at enrolment ({@link NodeKafkaUser}), whose SCRAM password the User
 * Operator writes into a Secret of the same name, which the enrolment waits for (bounded) and hands
 * to the agent; revoking the node deletes the user, and with it the broker's SCRAM credential, its
 * ACLs and its quota. Needs {@code create}, {@code get}, {@code update} and {@code delete} on
 * {@code kafkausers.kafka.strimzi.io} and {@code get} on {@code secrets}, in the Kafka namespace
 * only.
 */
@ApplicationScoped
public class NodeKafkaUsers {
  private static final Logger LOG = Logger.getLogger(NodeKafkaUsers.class);
  private static final Duration FIRST_POLL = Duration.ofMillis(200);
  private static final Duration LONGEST_POLL = Duration.ofSeconds(2);

  private final Supplier<KubernetesClient> client;
  private final boolean enabled;
  private final KafkaUserSettings settings;

  @Inject
  public NodeKafkaUsers(Instance<KubernetesClient> client, NodeIdentityConfig config) {
    this(client::get, config.kafkaUsers().enabled(), KafkaUserSettings.of(config.kafkaUsers()));
  }

  /** For a given client (tests drive it against the mock API server). */
  public NodeKafkaUsers(
      Supplier<KubernetesClient> client, boolean enabled, KafkaUserSettings settings) {
    this.client = client;
    this.enabled = enabled;
    this.settings = settings;
  }

  public boolean enabled() {
    return enabled;
  }

  /**
   * The node's credential: its KafkaUser made (or brought up to the configured grants and quotas)
   * and the password the User Operator wrote for it; empty when the feature is off.
   *
   * @throws KafkaCredentialUnavailableException (failed Uni) when the Secret did not come within
   *     {@code secret-timeout} or the Kubernetes API refused
   */
  public Uni<Optional<KafkaCredential>> provision(String node) {
    if (!enabled) {
      return Uni.createFrom().item(Optional.empty());
    }
    String name = NodeKafkaUser.nameOf(node);
    return blocking(() -> apply(node))
        .chain(user -> awaitPassword(user, name))
        .map(
            password ->
                Optional.of(new KafkaCredential(name, password, KafkaCredential.SCRAM_SHA_512)));
  }

  /** Deletes the node's KafkaUser, if any (nothing when the feature is off). */
  public Uni<Boolean> delete(String node) {
    if (!enabled) {
      return Uni.createFrom().item(false);
    }
    String name = NodeKafkaUser.nameOf(node);
    return blocking(
        () -> {
          try {
            boolean deleted =
                !client
                    .get()
                    .resources(KafkaUser.class)
                    .inNamespace(namespace())
                    .withName(name)
                    .delete()
                    .isEmpty();
            LOG.infof(
                "node '%s': KafkaUser %s/%s %s",
                node, namespace(), name, deleted ? "deleted" : "was not there");
            return deleted;
          } catch (KubernetesClientException e) {
            throw new KafkaCredentialUnavailableException(
                "node '"
                    + node
                    + "' is revoked, but its KafkaUser "
                    + namespace()
                    + "/"
                    + name
                    + " could not be deleted ("
                    + e.getCode()
                    + " "
                    + e.getMessage()
                    + "); revoke it again",
                e);
          }
        });
  }

  private KafkaUser apply(String node) {
    KafkaUser user = NodeKafkaUser.of(node, namespace(), settings);
    try {
      KafkaUser stored =
          client
              .get()
              .resources(KafkaUser.class)
              .inNamespace(namespace())
              .resource(user)
              .createOr(NonDeletingOperation::update);
      LOG.infof(
          "node '%s': KafkaUser %s/%s applied", node, namespace(), user.getMetadata().getName());
      return stored;
    } catch (KubernetesClientException e) {
      throw new KafkaCredentialUnavailableException(
          "cannot create the KafkaUser "
              + namespace()
              + "/"
              + user.getMetadata().getName()
              + " of node '"
              + node
              + "' ("
              + e.getCode()
              + " "
              + e.getMessage()
              + "); the control plane needs create, get and update on"
              + " kafkausers.kafka.strimzi.io in that namespace",
          e);
    }
  }

  /**
   * The password of the Secret the User Operator writes for {@code user}, polled (the control plane
   * may only get secrets, not watch them) until it is there and owned by this very KafkaUser (not
   * the Secret of a deleted earlier one, which the operator has yet to remove).
   */
  private Uni<String> awaitPassword(KafkaUser user, String name) {
    String uid = user.getMetadata().getUid();
    return blocking(() -> password(name, uid))
        .onItem()
        .ifNull()
        .failWith(SecretNotWrittenYet::new)
        .onFailure(SecretNotWrittenYet.class)
        .retry()
        .withBackOff(FIRST_POLL, LONGEST_POLL)
        .expireIn(settings.secretTimeout().toMillis())
        // Mutiny ends the retries with an IllegalStateException caused by the last failure.
        .onFailure(
            e -> e instanceof SecretNotWrittenYet || e.getCause() instanceof SecretNotWrittenYet)
        .transform(
            e ->
                new KafkaCredentialUnavailableException(
                    "Strimzi's User Operator did not write the Secret "
                        + namespace()
                        + "/"
                        + name
                        + " of the node's KafkaUser within "
                        + settings.secretTimeout()
                        + " (fleetwave.node-identity.kafka-users.secret-timeout); is the User"
                        + " Operator running and watching that namespace? Nothing was enrolled:"
                        + " try again"));
  }

  private String password(String name, String uid) {
    Secret secret;
    try {
      secret = client.get().secrets().inNamespace(namespace()).withName(name).get();
    } catch (KubernetesClientException e) {
      throw new KafkaCredentialUnavailableException(
          "cannot read the Secret "
              + namespace()
              + "/"
              + name
              + " ("
              + e.getCode()
              + " "
              + e.getMessage()
              + "); the control plane needs get on secrets in that namespace",
          e);
    }
    if (secret == null
        || secret.getData() == null
        || secret.getData().get("password") == null
        || !ownedBy(secret, uid)) {
      return null;
    }
    return new String(
        Base64.getDecoder().decode(secret.getData().get("password")), StandardCharsets.UTF_8);
  }

  private static boolean ownedBy(Secret secret, String uid) {
    if (uid == null) {
      return true; // an API server that assigns no uids (none does in production)
    }
    return secret.getMetadata().getOwnerReferences().stream()
        .map(OwnerReference::getUid)
        .anyMatch(uid::equals);
  }

  private String namespace() {
    return settings.namespace();
  }

  /** fabric8 blocks: off the event loop. */
  private static <T> Uni<T> blocking(Supplier<T> call) {
    return Uni.createFrom().item(call).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
  }

  private static final class SecretNotWrittenYet extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SecretNotWrittenYet() {
      super("the User Operator has not written the Secret yet", null, false, false);
    }
  }
}
