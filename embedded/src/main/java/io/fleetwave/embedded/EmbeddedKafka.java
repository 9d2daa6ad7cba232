package io.fleetwave.embedded;

import java.net.BindException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import kafka.server.BrokerServer;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka broker (KRaft, combined broker + controller) running in this JVM.
 *
 * <p>Used by the demo and by every test tier. It is Kafka's own test kit, not a fake: the same
 * broker code, storage format and protocol as a production cluster.
 */
public final class EmbeddedKafka implements KafkaBroker {
  private static final Duration RESTART_BOUND = Duration.ofSeconds(60);

  private final KafkaClusterTestKit cluster;
  private final String bootstrapServers;

  private EmbeddedKafka(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
    this.bootstrapServers = cluster.bootstrapServers();
  }

  /** Formats storage in a temporary directory, starts the broker and waits until it serves. */
  public static EmbeddedKafka start() {
    return start(Map.of());
  }

  /** As {@link #start()}, with extra broker properties. */
  public static EmbeddedKafka start(Map<String, String> brokerProperties) {
    return start(nodes -> brokerProperties);
  }

  /**
   * As {@link #start()}, with broker properties made knowing the test kit's nodes: their listener
   * names (its plaintext client listener and the controller's), which a caller that adds a listener
   * must list along with its own.
   */
  static EmbeddedKafka start(Function<TestKitNodes, Map<String, String>> brokerProperties) {
    try {
      TestKitNodes nodes =
          new TestKitNodes.Builder()
              .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
              .setCombined(true)
              .setNumBrokerNodes(1)
              .setNumControllerNodes(1)
              // Our own directory: the test kit's default one is deleted by a JVM shutdown
              // hook that races the broker's own close on SIGTERM (the broker then fails
              // its log directory instead of stopping). close() deletes this one.
              .setBaseDirectory(Files.createTempDirectory("fleetwave-kafka-"))
              .build();
      KafkaClusterTestKit.Builder builder =
          new KafkaClusterTestKit.Builder(nodes)
              .setConfigProp("offsets.topic.replication.factor", "1")
              .setConfigProp("transaction.state.log.replication.factor", "1")
              .setConfigProp("transaction.state.log.min.isr", "1")
              .setConfigProp("group.initial.rebalance.delay.ms", "0")
              .setConfigProp("num.partitions", "4")
              .setConfigProp("auto.create.topics.enable", "false");
      brokerProperties.apply(nodes).forEach(builder::setConfigProp);
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

  @Override
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** The port the broker bound for a listener of its own configuration (e.g. SASL_SSL's). */
  public int boundPort(String listener) {
    return broker().boundPort(ListenerName.normalised(listener));
  }

  /**
   * Stops the broker as a crash would look to clients (its controller keeps the metadata); its logs
   * stay, and {@link #restartBroker()} brings it back on the same port.
   */
  public synchronized void stopBroker() {
    BrokerServer broker = broker();
    broker.shutdown();
    broker.awaitShutdown();
  }

  /**
   * Starts the broker stopped by {@link #stopBroker()} again on its port, bounded like {@link
   * #start()}. That port is in the ephemeral range: on a busy machine an outgoing connection (the
   * clients' own reconnects to it included, a TCP self-connect) can hold it for a moment, so a bind
   * that fails is tried again, every 250 ms for at most 60 s.
   */
  public synchronized void restartBroker() {
    long deadline = System.nanoTime() + RESTART_BOUND.toNanos();
    while (true) {
      try {
        broker().startup();
        waitBounded(cluster);
        return;
      } catch (RuntimeException e) {
        if (!addressInUse(e) || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "embedded Kafka broker failed to restart on " + bootstrapServers + ": " + e, e);
        }
        broker().shutdown();
        broker().awaitShutdown();
        pause();
      } catch (Exception e) {
        throw new IllegalStateException(
            "embedded Kafka broker failed to restart: " + e.getMessage(), e);
      }
    }
  }

  private static boolean addressInUse(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException
          || String.valueOf(t.getMessage()).contains("Address already in use")) {
        return true;
      }
    }
    return false;
  }

  private static void pause() {
    try {
      Thread.sleep(250);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while restarting the embedded broker", e);
    }
  }

  private BrokerServer broker() {
    return cluster.brokers().values().iterator().next();
  }

  /** Topic-level config for a compacted topic (kept here: the demo and tests name it so). */
  public static Map<String, String> compacted() {
    return KafkaBroker.compacted();
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
