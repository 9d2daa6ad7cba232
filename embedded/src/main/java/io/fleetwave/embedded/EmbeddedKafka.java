package io.fleetwave.embedded;

import java.time.Duration;
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
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka broker (KRaft, combined broker + controller) running in this JVM.
 *
 * <p>Used by the demo and by every test tier. It is Kafka's own test kit, not a fake: the same
 * broker code, storage format and protocol as a production cluster.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaClusterTestKit cluster;

  private EmbeddedKafka(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
  }

  /** Formats storage in a temporary directory, starts the broker and waits until it serves. */
  public static EmbeddedKafka start() {
    return start(Map.of());
  }

  /** As {@link #start()}, with extra broker properties. */
  public static EmbeddedKafka start(Map<String, String> brokerProperties) {
    try {
      KafkaClusterTestKit.Builder builder =
          new KafkaClusterTestKit.Builder(
                  new TestKitNodes.Builder()
                      .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
                      .setCombined(true)
                      .setNumBrokerNodes(1)
                      .setNumControllerNodes(1)
                      .build())
              .setConfigProp("offsets.topic.replication.factor", "1")
              .setConfigProp("transaction.state.log.replication.factor", "1")
              .setConfigProp("transaction.state.log.min.isr", "1")
              .setConfigProp("group.initial.rebalance.delay.ms", "0")
              .setConfigProp("num.partitions", "4")
              .setConfigProp("auto.create.topics.enable", "false");
      brokerProperties.forEach(builder::setConfigProp);
      KafkaClusterTestKit cluster = builder.build();
      cluster.format();
      cluster.startup();
      waitBounded(cluster);
      return new EmbeddedKafka(cluster);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(
          "embedded Kafka broker failed to start: " + e.getMessage(), e);
    }
  }

  private static void waitBounded(KafkaClusterTestKit cluster) throws Exception {
    try {
      java.util.concurrent.CompletableFuture.runAsync(
              () -> {
                try {
                  cluster.waitForReadyBrokers();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException(e);
                } catch (ExecutionException e) {
                  throw new IllegalStateException(e.getCause());
                }
              })
          .get(60, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      cluster.close();
      throw new IllegalStateException("embedded Kafka broker was not ready within 60 s", e);
    }
  }

  public String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  /** Creates the given topics if missing (idempotent), with the given partition count. */
  public void createTopics(int partitions, String... topics) {
    createTopics(partitions, Map.of(), topics);
  }

  /** Creates topics if missing, with topic-level configs (e.g. compaction). */
  public void createTopics(int partitions, Map<String, String> configs, String... topics) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ADMIN_TIMEOUT.toMillis());
    try (Admin admin = Admin.create(props)) {
      List<NewTopic> newTopics =
          java.util.Arrays.stream(topics)
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

  /** Topic-level config for a compacted topic. */
  public static Map<String, String> compacted() {
    return Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
  }

  @Override
  public void close() {
    try {
      cluster.close();
    } catch (Exception e) {
      throw new IllegalStateException("embedded Kafka broker failed to stop cleanly", e);
    }
  }
}
