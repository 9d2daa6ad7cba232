package io.fleetwave.controlplane.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * {@code fleetwave.node-identity.*}: how nodes prove who they are (docs/security.md "Node identity:
 * every node event is signed by its node").
 */
@ConfigMapping(prefix = "fleetwave.node-identity")
public interface NodeIdentityConfig {
  /** How long a join token is valid when its creator does not say. */
  @WithDefault("24h")
  @DurationMin(seconds = 1)
  Duration joinTokenLifetime();

  /** The longest lifetime a join token may be given. */
  @WithDefault("7d")
  @DurationMin(seconds = 1)
  Duration joinTokenMaxLifetime();

  /**
   * The Kubernetes service accounts whose tokens may enroll a node (user names as the TokenReview
   * API reports them, e.g. {@code system:serviceaccount:fleetwave:fleetwave-agent}); none:
   * service-account enrolment is off and only join tokens enroll.
   */
  Optional<List<String>> serviceAccounts();

  /** The audiences the agent's projected service-account token must carry, if any. */
  Optional<List<String>> tokenAudiences();

  /**
   * The DaemonSets whose pods may enroll with a service-account token (names, or a prefix ending in
   * {@code *}): the token's pod must be controlled by one of them, in the service account's
   * namespace, and run on the node that enrolls.
   */
  @WithDefault("fleetwave-agent-*")
  List<String> agentDaemonSets();

  /**
   * Enrolment attempts one source address may make at once, refilled at this many per {@link
   * #enrolmentRatePeriod()}; more are answered 429 with Retry-After. Per replica.
   */
  @WithDefault("20")
  @Min(1)
  int enrolmentsPerSource();

  /** Enrolment attempts for one node name, as {@link #enrolmentsPerSource()}. */
  @WithDefault("6")
  @Min(1)
  int enrolmentsPerNode();

  /** The period the enrolment limits refill over. */
  @WithDefault("1m")
  @DurationMin(seconds = 1)
  Duration enrolmentRatePeriod();

  /** Bound on each database call of an enrolment and on reading keys. */
  @WithDefault("10s")
  @DurationMin(millis = 1)
  Duration timeout();

  /** A Kafka credential of its own for each enrolled node ({@code kafka-users.*}). */
  KafkaUsers kafkaUsers();

  /**
   * {@code fleetwave.node-identity.kafka-users.*}: at enrolment the control plane makes the node a
   * Strimzi KafkaUser of its own, with the agent's grants and a quota, and hands the node its SCRAM
   * credential; revoking the node deletes it. Off: agents use the shared credential of their
   * --kafka-config file.
   */
  interface KafkaUsers {
    @WithDefault("false")
    boolean enabled();

    /** The namespace of the Kafka cluster, where the User Operator watches KafkaUsers. */
    Optional<String> namespace();

    /** The Strimzi Kafka cluster the users belong to (their {@code strimzi.io/cluster} label). */
    @WithDefault("fleetwave")
    String cluster();

    /**
     * How long an enrolment waits for the User Operator to write the new user's Secret; past it the
     * enrolment is answered 503 and nothing is enrolled (the agent tries again).
     */
    @WithDefault("30s")
    @DurationMin(millis = 1)
    Duration secretTimeout();

    /**
     * Bytes per second one node may publish, per broker (Kafka's {@code producer_byte_rate}). A
     * heartbeat every few seconds is about 1 KiB and an inventory a few tens of KiB; Kafka averages
     * over its quota window (about 10 s), so bursts fit.
     */
    @WithDefault("65536")
    @Min(1024)
    int producerByteRate();

    /**
     * Bytes per second one node may fetch, per broker ({@code consumer_byte_rate}): its specs and
     * commands, and a read-only host's read of the desired specs at start.
     */
    @WithDefault("1048576")
    @Min(1024)
    int consumerByteRate();

    /**
     * Share of one broker thread's time (network and request handler) a node's requests may use in
     * each quota window, in percent ({@code request_percentage}).
     */
    @WithDefault("10")
    @Min(1)
    int requestPercentage();
  }
}
