package io.fleetwave.events;

/**
 * Kafka topic names shared by the agent and the control plane. Every topic is keyed by node name.
 */
public final class Topics {
  /** Agent to control plane: facts, inventory, heartbeats, progress. Key = node name. */
  public static final String NODE_EVENTS = "fleet.node-events";

  /** Records of {@link #NODE_EVENTS} that could not be decoded, with the cause in headers. */
  public static final String NODE_EVENTS_DLQ = "fleet.node-events.dlq";

  /** Compacted: each node's full desired spec. Key = node name. */
  public static final String NODE_DESIRED = "fleet.node-desired";

  /** One-shot commands to agents. Key = node name. */
  public static final String NODE_COMMANDS = "fleet.node-commands";

  /**
   * Compacted: each node's projected state and the (epoch, seq) it covers, written by the control
   * plane, so that a rebuild needs only the retained tail of {@link #NODE_EVENTS}. Key = node name.
   */
  public static final String NODE_SNAPSHOTS = "fleet.node-snapshots";

  /** The rollout engine's own event-sourced state. Key = rollout id. */
  public static final String ROLLOUT_EVENTS = "fleet.rollout-events";

  /**
   * The control plane's own facts (node keys enrolled, nodes revoked and re-admitted), kept forever
   * and never compacted: the tables PostgreSQL keeps of them are rebuilt from it. One partition, so
   * every fact has one place in one order. Key = the fact's subject (a node name).
   */
  public static final String CONTROL_FACTS = "fleet.control-facts";

  /** Header names carried on dead-lettered records. */
  public static final String DLQ_REASON_HEADER = "dead-letter-reason";

  public static final String DLQ_TOPIC_HEADER = "dead-letter-topic";
  public static final String DLQ_PARTITION_HEADER = "dead-letter-partition";
  public static final String DLQ_OFFSET_HEADER = "dead-letter-offset";

  private Topics() {}
}
