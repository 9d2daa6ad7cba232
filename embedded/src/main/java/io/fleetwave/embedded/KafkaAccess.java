package io.fleetwave.embedded;

import io.fleetwave.events.Topics;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What each Fleetwave component may do on Kafka: the ACLs of its principal, least privilege. The
 * Strimzi KafkaUsers of {@code deploy/kafka/users.yaml} must grant exactly these (the deploy tests
 * compare them), and the SASL tests run the real agent and control plane under them on {@link
 * SecuredKafka}, so a grant the code needs and the YAML lacks fails a test, and so does one the
 * YAML grants beyond these.
 *
 * <p>A topic's Describe is implied by Read and Write; since Kafka 3.0 (KIP-679) Write on a topic is
 * enough for an idempotent producer, so neither side needs a cluster-level grant. Neither side is
 * transactional.
 */
public final class KafkaAccess {
  /** The consumer groups of the control plane (application.properties): fleetwave-*. */
  public static final String CONTROL_PLANE_GROUPS = "fleetwave-";

  /**
   * The node agent: publishes its node's events; reads its desired spec and its commands (without a
   * consumer group: partitions are assigned); and reads its own partition of the node events back,
   * from the end, to learn its last epoch where the host keeps none (a read-only root, or a first
   * start: {@code LastEpochOnTopic}). Kafka's ACLs cannot narrow that Read to one key, so an
   * agent's credentials can read other nodes' events; they cannot write specs or commands, read the
   * rollouts, the snapshots or the dead letters, nor join a group.
   */
  public static final List<Grant> AGENT =
      List.of(
          Grant.topic(Topics.NODE_EVENTS, AclOperation.WRITE),
          Grant.topic(Topics.NODE_EVENTS, AclOperation.READ),
          Grant.topic(Topics.NODE_DESIRED, AclOperation.READ),
          Grant.topic(Topics.NODE_COMMANDS, AclOperation.READ));

  /**
   * The control plane: the projection reads node events in its group (the rebuild reads them from
   * offset 0 and the group's committed offsets) and writes dead letters; the spec API writes
   * desired specs and commands; snapshots are written and read back by the rebuild; the rollout
   * engine reads and appends its own log and watches node events; the control plane alone appends
   * and reads its facts (fleet.control-facts).
   */
  public static final List<Grant> CONTROL_PLANE =
      List.of(
          Grant.topic(Topics.NODE_EVENTS, AclOperation.READ),
          Grant.topic(Topics.NODE_EVENTS_DLQ, AclOperation.WRITE),
          Grant.topic(Topics.NODE_DESIRED, AclOperation.WRITE),
          Grant.topic(Topics.NODE_SNAPSHOTS, AclOperation.READ),
          Grant.topic(Topics.NODE_SNAPSHOTS, AclOperation.WRITE),
          Grant.topic(Topics.NODE_COMMANDS, AclOperation.WRITE),
          Grant.topic(Topics.ROLLOUT_EVENTS, AclOperation.READ),
          Grant.topic(Topics.ROLLOUT_EVENTS, AclOperation.WRITE),
          Grant.topic(Topics.CONTROL_FACTS, AclOperation.READ),
          Grant.topic(Topics.CONTROL_FACTS, AclOperation.WRITE),
          new Grant(
              ResourceType.GROUP, CONTROL_PLANE_GROUPS, PatternType.PREFIXED, AclOperation.READ));

  private KafkaAccess() {}

  /** One allowed operation on a resource, from any host. */
  public record Grant(ResourceType type, String name, PatternType pattern, AclOperation operation) {
    static Grant topic(String name, AclOperation operation) {
      return new Grant(ResourceType.TOPIC, name, PatternType.LITERAL, operation);
    }

    /** The ACL for {@code principal} (e.g. {@code User:fleetwave-agent}). */
    public AclBinding binding(String principal) {
      return new AclBinding(
          new ResourcePattern(type, name, pattern),
          new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    /**
     * As a Strimzi KafkaUser spells it: {@code type patternType name Operation}, e.g. {@code topic
     * literal fleet.node-events Write} or {@code group prefix fleetwave- Read}.
     */
    public String strimzi() {
      String patternType = pattern == PatternType.PREFIXED ? "prefix" : "literal";
      return type.name().toLowerCase(Locale.ROOT)
          + " "
          + patternType
          + " "
          + name
          + " "
          + Arrays.stream(operation.name().split("_"))
              .map(w -> w.charAt(0) + w.substring(1).toLowerCase(Locale.ROOT))
              .collect(Collectors.joining());
    }
  }
}
