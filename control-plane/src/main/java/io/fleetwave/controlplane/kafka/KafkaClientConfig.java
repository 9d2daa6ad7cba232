package io.fleetwave.controlplane.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The application's Kafka settings (Quarkus' {@code default-kafka-broker}: bootstrap servers,
 * security, SASL, tuning) made fit for a client the control plane builds itself. Every such client
 * sets its own (de)serializers, and none of them joins a consumer group (they assign partitions),
 * so those keys are left out rather than passed to a client that would warn about them or, for a
 * group id, start committing offsets.
 */
public final class KafkaClientConfig {
  private KafkaClientConfig() {}

  /** The settings without group and (de)serializer keys; a new, mutable map. */
  public static Map<String, Object> shared(Map<String, Object> application) {
    Map<String, Object> config = new HashMap<>(application);
    config.keySet().removeIf(KafkaClientConfig::setByEachClient);
    return config;
  }

  /**
   * For a consumer that assigns partitions itself: no group, no auto-commit, and up to {@code
   * maxPollRecords} records a poll.
   */
  public static Map<String, Object> assigningConsumer(
      Map<String, Object> application, int maxPollRecords) {
    Map<String, Object> config = shared(application);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
    return config;
  }

  static boolean setByEachClient(String key) {
    return key.startsWith("group.") || key.endsWith("serializer");
  }
}
