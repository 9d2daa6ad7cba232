package io.fleetwave.embedded;

import java.net.BindException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
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
  // How long a restarted broker may take to serve the topics it served before its stop; a start
  // that does not serve them by then is stopped and made again (once seen in a fresh clone: the
  // broker was up, but answered every metadata request without the topic for two minutes).
  private static final Duration SERVE_BOUND = Duration.ofSeconds(20);

  private final KafkaClusterTestKit cluster;
  private final String bootstrapServers;
  private Set<String> servedBeforeStop = Set.of(); // guarded by this

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
    servedBeforeStop = topics();
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
      Optional<Set<String>> unserved; // empty: the start failed to bind, tried again
      try {
        broker().startup();
        waitBounded(cluster);
        unserved = Optional.of(unservedWithin(servedBeforeStop, SERVE_BOUND));
      } catch (RuntimeException e) {
        if (!addressInUse(e) || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "embedded Kafka broker failed to restart on " + bootstrapServers + ": " + e, e);
        }
        unserved = Optional.empty();
      } catch (Exception e) {
        throw new IllegalStateException(
            "embedded Kafka broker failed to restart: " + e.getMessage(), e);
      }
      if (unserved.isPresent() && unserved.get().isEmpty()) {
        return;
      }
      if (unserved.isPresent() && System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "embedded Kafka broker restarted on "
                + bootstrapServers
                + " but did not serve "
                + unserved.get()
                + " (a partition without a leader, or no metadata) within "
                + SERVE_BOUND
                + " of a start, for "
                + RESTART_BOUND);
      }
      broker().shutdown();
      broker().awaitShutdown();
      pause();
    }
  }

  /** The topics this broker serves now (internal ones left out). */
  private Set<String> topics() {
    try (Admin admin = admin()) {
      return Set.copyOf(
          admin.listTopics().names().get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing the embedded broker's topics", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "cannot list the topics of the embedded broker on " + bootstrapServers + ": " + e, e);
    }
  }

  /**
   * Of {@code topics}, those that a new client does not find with a leader for every partition
   * within {@code bound}, asked every 250 ms: the broker's own readiness says it is registered, not
   * that it answers metadata requests with what it holds.
   */
  private Set<String> unservedWithin(Set<String> topics, Duration bound) {
    if (topics.isEmpty()) {
      return topics;
    }
    long until = System.nanoTime() + bound.toNanos();
    Set<String> unserved = topics;
    try (Admin admin = admin()) {
      while (true) {
        unserved = unserved(admin, topics);
        if (unserved.isEmpty() || System.nanoTime() > until) {
          return unserved;
        }
        pause();
      }
    }
  }

  private static Set<String> unserved(Admin admin, Set<String> topics) {
    Set<String> unserved = new TreeSet<>();
    admin
        .describeTopics(topics)
        .topicNameValues()
        .forEach(
            (name, described) -> {
              try {
                if (!described
                    .get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .partitions()
                    .stream()
                    .allMatch(p -> p.leader() != null)) {
                  unserved.add(name);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while asking the embedded broker", e);
              } catch (ExecutionException | TimeoutException e) {
                unserved.add(name); // not served yet (unknown, or no answer): asked again
              }
            });
    return unserved;
  }

  private Admin admin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    return Admin.create(props);
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
