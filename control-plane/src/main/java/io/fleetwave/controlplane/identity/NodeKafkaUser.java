package io.fleetwave.controlplane.identity;

import io.fleetwave.events.Topics;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.KafkaUserBuilder;
import io.strimzi.api.kafka.model.user.KafkaUserScramSha512ClientAuthentication;
import io.strimzi.api.kafka.model.user.acl.AclResourcePatternType;
import io.strimzi.api.kafka.model.user.acl.AclRule;
import io.strimzi.api.kafka.model.user.acl.AclRuleBuilder;
import io.strimzi.api.kafka.model.user.acl.AclRuleTopicResourceBuilder;
import io.strimzi.api.kafka.model.user.acl.AclRuleType;
import io.strimzi.api.kafka.model.user.acl.StrimziAclOperation;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Strimzi KafkaUser of one node (Strimzi's own model, {@code kafka.strimzi.io/v1}):
 * SCRAM-SHA-512, the grants an agent's code uses, and a quota of its own, so that one node that
 * floods is throttled alone. Strimzi's User Operator applies {@code spec.quotas} as Kafka quotas of
 * the user entity (Admin {@code alterClientQuotas} with {@code ClientQuotaEntity.USER}:
 * strimzi-kafka-operator, user-operator/.../operator/QuotasOperator.java), which is what {@code
 * NodeKafkaQuotaIT} sets on a real broker.
 *
 * <p>The grants are those of the shared agent credential (embedded/.../KafkaAccess.AGENT; the tests
 * compare them). Kafka's ACLs name topics, groups and transactional ids, never keys or partitions,
 * so they cannot narrow a node to its own records: it writes and reads fleet.node-events as every
 * agent does (a record it puts under another node's name is dead-lettered by the signature check,
 * not by the broker). The agent uses no consumer group and no transactional id, so there is nothing
 * of those to grant, per node or otherwise.
 */
public final class NodeKafkaUser {
  /** Every node's user is named with it, so the control plane may only ever touch its own users. */
  public static final String PREFIX = "fleetwave-node-";

  /** Label and annotation the users carry (a node name can be too long for a label value). */
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";

  public static final String CONTROL_PLANE = "fleetwave-control-plane";
  public static final String NODE_ANNOTATION = "fleetwave.io/node";

  /**
   * At most 63 characters: a valid label value too, as the User Operator labels what it makes for
   * the user with the user's name.
   */
  static final int MAX_NAME = 63;

  private static final int HASH_CHARS = 16;
  private static final Pattern HASHED = Pattern.compile(".*-[0-9a-f]{" + HASH_CHARS + "}");

  private NodeKafkaUser() {}

  /**
   * {@code fleetwave-node-<node>}, or, when that would be longer than {@link #MAX_NAME} or could be
   * mistaken for a shortened name (it ends in a dash and 16 hex digits), its start and the first 16
   * hex digits of the SHA-256 of the node name: two nodes never share a user.
   */
  public static String nameOf(String node) {
    String plain = PREFIX + node;
    if (plain.length() <= MAX_NAME && !HASHED.matcher(plain).matches()) {
      return plain;
    }
    String hash = sha256(node).substring(0, HASH_CHARS);
    String start = plain.substring(0, MAX_NAME - HASH_CHARS - 1);
    // A DNS label may not end in '-' or '.' before the dash we add.
    start = start.replaceAll("[-.]+$", "");
    return start + "-" + hash;
  }

  /** The node's KafkaUser in {@code namespace}, for the cluster and with the quotas configured. */
  public static KafkaUser of(String node, String namespace, KafkaUserSettings settings) {
    return new KafkaUserBuilder()
        .withNewMetadata()
        .withName(nameOf(node))
        .withNamespace(namespace)
        .withLabels(Map.of("strimzi.io/cluster", settings.cluster(), MANAGED_BY, CONTROL_PLANE))
        .withAnnotations(Map.of(NODE_ANNOTATION, node))
        .endMetadata()
        .withNewSpec()
        .withAuthentication(new KafkaUserScramSha512ClientAuthentication())
        .withNewKafkaUserAuthorizationSimple()
        .withAcls(agentGrants())
        .endKafkaUserAuthorizationSimple()
        .withNewQuotas()
        .withProducerByteRate(settings.producerByteRate())
        .withConsumerByteRate(settings.consumerByteRate())
        .withRequestPercentage(settings.requestPercentage())
        .endQuotas()
        .endSpec()
        .build();
  }

  /**
   * What an agent's code uses: publish its node's events and read its own partition of them back
   * (its last epoch on a read-only host), read its desired specs and its commands (partitions
   * assigned, no group).
   */
  private static List<AclRule> agentGrants() {
    return List.of(
        allow(Topics.NODE_EVENTS, StrimziAclOperation.WRITE, StrimziAclOperation.READ),
        allow(Topics.NODE_DESIRED, StrimziAclOperation.READ),
        allow(Topics.NODE_COMMANDS, StrimziAclOperation.READ));
  }

  private static AclRule allow(String topic, StrimziAclOperation... operations) {
    return new AclRuleBuilder()
        .withType(AclRuleType.ALLOW)
        .withResource(
            new AclRuleTopicResourceBuilder()
                .withName(topic)
                .withPatternType(AclResourcePatternType.LITERAL)
                .build())
        .withOperations(operations)
        .build();
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
