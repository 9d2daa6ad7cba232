package io.fleetwave.agent.publish;

import io.fleetwave.agent.kafka.ClientOverrides;
import io.fleetwave.agent.kafka.KafkaRefusal;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.security.NodeEventSigner;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes node events to Kafka: idempotent producer, acks=all, key = node name, value = the
 * CloudEvents JSON of the envelope, signed by the node's enrolled key ({@link #signAs}). Every send
 * is bounded (max.block.ms, delivery.timeout.ms) and every failure is reported: the returned future
 * fails, the failure counter grows, the failure listener and the log hear of it. One instance is
 * meant to be shared by many agents.
 */
public final class EventPublisher implements AutoCloseable {
  public static final String CONTENT_TYPE_HEADER = "content-type";
  private static final System.Logger LOG = System.getLogger(EventPublisher.class.getName());

  /**
   * @param bootstrapServers Kafka bootstrap servers
   * @param topic where node events go (normally {@link Topics#NODE_EVENTS})
   * @param deliveryTimeout bound on one event from send to acknowledgement, retries included
   * @param maxBlock bound on a send waiting for metadata or buffer space
   * @param overrides further producer properties (security, tuning, client.id); the keys the
   *     publisher owns are refused ({@link ClientOverrides})
   */
  public record Settings(
      String bootstrapServers,
      String topic,
      Duration deliveryTimeout,
      Duration maxBlock,
      Map<String, Object> overrides) {
    public Settings {
      Objects.requireNonNull(bootstrapServers, "bootstrapServers");
      Objects.requireNonNull(topic, "topic");
      overrides = ClientOverrides.check(overrides);
    }

    public static Settings of(String bootstrapServers) {
      return new Settings(
          bootstrapServers,
          Topics.NODE_EVENTS,
          Duration.ofSeconds(30),
          Duration.ofSeconds(10),
          Map.of());
    }

    /** These settings publishing to another topic (a test's or a simulated fleet's own). */
    public Settings withTopic(String topic) {
      return new Settings(bootstrapServers, topic, deliveryTimeout, maxBlock, overrides);
    }

    /** These settings with an operator's client properties (e.g. from --kafka-config). */
    public Settings withOverrides(Map<String, ?> overrides) {
      return new Settings(
          bootstrapServers, topic, deliveryTimeout, maxBlock, Map.copyOf(overrides));
    }
  }

  private final KafkaProducer<String, byte[]> producer;
  private final String topic;
  private final String bootstrapServers;
  private final Duration maxBlock;
  private final Map<String, NodeEventSigner> signers = new ConcurrentHashMap<>();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile BiConsumer<Envelope<?>, Exception> failureListener = (envelope, error) -> {};
  private final ScheduledExecutorService deliveryExecutor =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().name("fleetwave-delivery").daemon().factory());

  public EventPublisher(Settings settings) {
    this.topic = settings.topic();
    this.bootstrapServers = settings.bootstrapServers();
    this.maxBlock = settings.maxBlock();
    this.producer = new KafkaProducer<>(producerConfig(settings));
  }

  /**
   * The producer properties this publisher uses: tuning and client.id that the overrides may
   * change, then the overrides, then what the publisher owns (servers, serializers, ordering and
   * delivery guarantees, bounds), which nothing overrides.
   */
  public static Map<String, Object> producerConfig(Settings settings) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    // Inventories of thousands of nodes are repetitive JSON: compress, and batch more per request.
    config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, 128 * 1024);
    config.put(ProducerConfig.CLIENT_ID_CONFIG, "fleetwave-agent");
    config.putAll(settings.overrides());
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    int delivery = (int) settings.deliveryTimeout().toMillis();
    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, delivery);
    config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(10_000, delivery / 2));
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, settings.maxBlock().toMillis());
    return config;
  }

  /**
   * Waits, within max.block.ms, until the broker answers and the topic exists, so a launcher fails
   * at once with a clear message instead of every send timing out one after the other.
   *
   * @throws IllegalStateException naming the servers, the topic and the bound
   */
  public void awaitTopic() {
    awaitTopic(maxBlock);
  }

  /**
   * As {@link #awaitTopic()}, asking again while {@code patience} lasts: a cold agent's first TLS
   * and SASL round trips on a node busy booting can take longer than one max.block.ms. A refusal
   * (credentials, ACLs) is final at once.
   */
  public void awaitTopic(Duration patience) {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      try {
        producer.partitionsFor(topic);
        LOG.log(Level.INFO, "Kafka at {0} serves topic {1}", bootstrapServers, topic);
        return;
      } catch (RuntimeException e) {
        if (KafkaRefusal.of(e).isPresent() || System.nanoTime() + maxBlock.toNanos() > deadline) {
          throw notServed(e, patience);
        }
        LOG.log(
            Level.WARNING,
            "Kafka at {0} has not served topic {1} yet ({2}); asking again",
            bootstrapServers,
            topic,
            e.getMessage());
      }
    }
  }

  private IllegalStateException notServed(RuntimeException e, Duration patience) {
    return new IllegalStateException(
        "Kafka at "
            + bootstrapServers
            + " "
            + KafkaRefusal.of(e)
                .orElseGet(
                    () ->
                        "did not serve topic "
                            + topic
                            + " within "
                            + patience
                            + " (is the broker up, the topic created, and security.protocol the"
                            + " one its listener expects?): "
                            + e.getMessage()),
        e);
  }

  /** Called (on the producer's I/O thread) for every event that could not be delivered. */
  public void onFailure(BiConsumer<Envelope<?>, Exception> listener) {
    this.failureListener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Sends one envelope, keyed by its subject (the node name), once: a failure is final for this
   * send. Agents do not call this directly but through their {@link OrderedDelivery}, which keeps
   * one event of a node in flight and sends the head again after a failure.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the callback completes the returned future
  public CompletableFuture<RecordMetadata> publish(Envelope<?> envelope) {
    CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
    byte[] value = EventCodec.encode(envelope);
    ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, envelope.subject(), value);
    record
        .headers()
        .add(
            new RecordHeader(
                CONTENT_TYPE_HEADER, EventCodec.CONTENT_TYPE.getBytes(StandardCharsets.UTF_8)));
    NodeEventSigner signer = signers.get(envelope.subject());
    if (signer != null) {
      // Signed when sent, over the bytes sent: a spooled event of an earlier run is signed with
      // the key the node holds now (the one it enrolled).
      signer.addHeaders(value, (name, text) -> record.headers().add(header(name, text)));
    }
    sent.incrementAndGet();
    try {
      producer.send(
          record,
          (metadata, error) -> {
            if (error == null) {
              acknowledged.incrementAndGet();
              result.complete(metadata);
            } else {
              fail(envelope, error, result);
            }
          });
    } catch (RuntimeException e) {
      fail(envelope, e, result);
    }
    return result;
  }

  private static RecordHeader header(String name, String value) {
    return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Signs the events of {@code node} with its enrolled key from now on (the control plane refuses a
   * node's unsigned events where node identity is required).
   */
  public void signAs(String node, NodeEventSigner signer) {
    signers.put(Objects.requireNonNull(node, "node"), Objects.requireNonNull(signer, "signer"));
  }

  private void fail(Envelope<?> envelope, Exception error, CompletableFuture<?> result) {
    failed.incrementAndGet();
    LOG.log(
        Level.WARNING,
        "event {0} #{1}/{2} of node {3} was not delivered to {4}: {5}",
        envelope.type(),
        envelope.epoch(),
        envelope.seq(),
        envelope.subject(),
        topic,
        error.toString());
    try {
      failureListener.accept(envelope, error);
    } finally {
      result.completeExceptionally(error);
    }
  }

  /**
   * The one thread on which the {@link OrderedDelivery} of every agent sharing this publisher sends
   * and retries: never the producer's I/O thread, and never the agents' own scheduler, which a send
   * blocked on metadata (within max.block.ms) must not hold up.
   */
  public ScheduledExecutorService deliveryExecutor() {
    return deliveryExecutor;
  }

  public long sent() {
    return sent.get();
  }

  public long acknowledged() {
    return acknowledged.get();
  }

  public long failed() {
    return failed.get();
  }

  /** Waits up to {@code timeout} for events in flight, then closes; undelivered ones fail. */
  public void close(Duration timeout) {
    try {
      producer.close(timeout);
    } finally {
      deliveryExecutor.shutdownNow();
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }
}
