package io.fleetwave.embedded;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A running Kafka broker that tests and the demo publish to: the in-process {@link EmbeddedKafka},
 * or (tests only) a broker in a container. Topics are created here because neither auto-creates
 * them.
 */
public interface KafkaBroker extends AutoCloseable {
  Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

  String bootstrapServers();

  /** Creates the given topics if missing (idempotent), with the given partition count. */
  default void createTopics(int partitions, String... topics) {
    createTopics(partitions, Map.of(), topics);
  }

  /** Creates topics if missing, with topic-level configs (e.g. {@link #compacted()}). */
  default void createTopics(int partitions, Map<String, String> configs, String... topics) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ADMIN_TIMEOUT.toMillis());
    try (Admin admin = Admin.create(props)) {
      List<NewTopic> newTopics =
          Arrays.stream(topics)
              .map(t -> new NewTopic(t, partitions, (short) 1).configs(configs))
              .toList();
      for (var entry : admin.createTopics(newTopics).values().entrySet()) {
        try {
          entry.getValue().get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException(
                "cannot create topic " + entry.getKey() + ": " + e.getCause().getMessage(), e);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("topic creation did not finish within " + ADMIN_TIMEOUT, e);
    }
  }

  /** Stops the broker and deletes its data. */
  @Override
  void close();

  /** Topic-level config for a compacted topic. */
  static Map<String, String> compacted() {
    return Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
  }
}
