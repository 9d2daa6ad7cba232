package io.fleetwave.embedded;

import io.fleetwave.events.Topics;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;

/** Creates Fleetwave's topics on a broker that does not auto-create them. */
public final class FleetTopics {
  public static final int NODE_PARTITIONS = 8;

  private FleetTopics() {}

  public static void create(KafkaBroker kafka) {
    kafka.createTopics(NODE_PARTITIONS, Topics.NODE_EVENTS, Topics.NODE_COMMANDS);
    kafka.createTopics(1, Topics.NODE_EVENTS_DLQ);
    kafka.createTopics(
        NODE_PARTITIONS, KafkaBroker.compacted(), Topics.NODE_DESIRED, Topics.NODE_SNAPSHOTS);
    kafka.createTopics(4, Topics.ROLLOUT_EVENTS);
    createControlFacts(kafka);
  }

  /** The control plane's facts topic, for callers that size the other topics themselves. */
  public static void createControlFacts(KafkaBroker kafka) {
    // Kept forever and never compacted (the broker's default cleanup): every fact counts.
    kafka.createTopics(1, Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1"), Topics.CONTROL_FACTS);
  }
}
