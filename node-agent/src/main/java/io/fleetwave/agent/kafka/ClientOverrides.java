package io.fleetwave.agent.kafka;

import static java.util.Map.entry;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Kafka client settings an operator adds to every client of the agent (security, tuning, client.id)
 * and the keys the agent keeps for itself. The publisher and the command follower put their own
 * keys after the overrides, so an owned key could not take effect anyway; refusing it says so at
 * start instead of leaving the operator to wonder.
 */
public final class ClientOverrides {
  private static final String ORDER = "one node's events stay in order and are never duplicated";
  private static final String NO_GROUP =
      "the agent reads its desired spec and commands without a consumer group: partitions are"
          + " assigned, nothing is committed, the desired topic is read from its beginning";
  private static final String BOUND =
      "a bound the agent sets on every Kafka call and names in its messages";

  /** Keys the agent's clients own, with why; an override of one is refused. */
  static final Map<String, String> OWNED =
      Map.ofEntries(
          entry(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, "events are keyed by node name"),
          entry(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, "events are CloudEvents JSON bytes"),
          entry(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, "commands are keyed by node name"),
          entry(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, "commands are JSON bytes"),
          entry(ProducerConfig.ACKS_CONFIG, "acks=all: " + ORDER),
          entry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "idempotent producer: " + ORDER),
          entry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "at most 5: " + ORDER),
          entry(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "the publisher is not transactional"),
          entry(ProducerConfig.PARTITIONER_CLASS_CONFIG, "partition by node name: " + ORDER),
          entry(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG, "partition by node name: " + ORDER),
          entry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, NO_GROUP),
          entry(
              ConsumerConfig.ISOLATION_LEVEL_CONFIG,
              "read_committed: a spec from an aborted transaction is never applied"),
          entry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, BOUND),
          entry(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, BOUND),
          entry(ProducerConfig.MAX_BLOCK_MS_CONFIG, BOUND),
          entry(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, BOUND));

  private static final String HIDDEN = "[hidden]";

  private ClientOverrides() {}

  /** Why the agent keeps this key, or null when an operator may set it. */
  static String owner(String key) {
    String why = OWNED.get(key);
    return why == null && key.startsWith("group.") ? NO_GROUP : why;
  }

  /**
   * The overrides, checked: an immutable copy.
   *
   * @throws IllegalArgumentException naming the first key the agent owns
   */
  public static Map<String, Object> check(Map<String, ?> overrides) {
    for (String key : new TreeMap<>(overrides).keySet()) {
      String why = owner(key);
      if (why != null) {
        throw new IllegalArgumentException(refusal(key, why));
      }
    }
    return Map.copyOf(overrides);
  }

  static String refusal(String key, String why) {
    return key + " is set by the agent and cannot be overridden (" + why + ")";
  }

  /**
   * The settings as {@code key=value, ...} for a log line. A value is shown only where Kafka
   * declares the key and not as a password; every other value (sasl.jaas.config, ssl passwords,
   * keys Kafka does not know) is {@value #HIDDEN}.
   */
  public static String masked(Map<String, ?> settings) {
    return new TreeMap<>(settings)
        .entrySet().stream()
            .map(e -> e.getKey() + "=" + (shown(e.getKey()) ? e.getValue() : HIDDEN))
            .collect(Collectors.joining(", "));
  }

  private static boolean shown(String key) {
    ConfigDef.ConfigKey declared = ProducerConfig.configDef().configKeys().get(key);
    if (declared == null) {
      declared = ConsumerConfig.configDef().configKeys().get(key);
    }
    return declared != null && declared.type() != ConfigDef.Type.PASSWORD;
  }
}
