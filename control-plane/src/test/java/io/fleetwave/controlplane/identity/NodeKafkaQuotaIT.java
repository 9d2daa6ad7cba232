package io.fleetwave.controlplane.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.RunsLast;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.embedded.KafkaAccess;
import io.fleetwave.embedded.SecuredKafka;
import io.fleetwave.events.Topics;
import io.strimzi.api.kafka.model.user.KafkaUserQuotas;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "One node cannot flood", on a real broker: two nodes' users as {@link NodeKafkaUser} makes them
 * (the agent's grants on {@link SecuredKafka}, SCRAM over TLS), each with the quota of its
 * KafkaUser's {@code spec.quotas} set as Strimzi's User Operator sets it, a Kafka quota of the user
 * entity (Admin alterClientQuotas; strimzi-kafka-operator
 * user-operator/.../operator/QuotasOperator.java). One node publishes as fast as it can; the broker
 * throttles it to about its quota, while the other node's heartbeats, every 200 ms, are each
 * acknowledged at once and all on the topic.
 *
 * <p>In NoQuarkusItsSuite's fork, last ({@link RunsLast}): its minute is mostly waiting on the
 * throttled broker, which costs the other forks nothing at the end of the module.
 */
@RunsLast
class NodeKafkaQuotaIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final Duration FLOOD = Duration.ofSeconds(8);
  private static final int PRODUCER_BYTE_RATE = 65536;

  @TempDir static Path directory;
  private static SecuredKafka kafka;

  @BeforeAll
  static void broker() {
    kafka = SecuredKafka.start(directory);
    FleetTopics.create(kafka);
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void aFloodingNodeIsThrottledWhileAnotherNodesHeartbeatsGoThroughAtFullRate() throws Exception {
    String flooder = admit("gpu-flood");
    String steady = admit("gpu-steady");

    AtomicBoolean flooding = new AtomicBoolean(true);
    AtomicLong floodedBytes = new AtomicLong();
    double throttleMs;
    List<Long> heartbeatAckMs = new ArrayList<>();
    try (KafkaProducer<String, byte[]> flood = producer(flooder);
        KafkaProducer<String, byte[]> heartbeats = producer(steady)) {
      Thread floodThread =
          Thread.ofPlatform()
              .start(
                  () -> {
                    byte[] junk = new byte[16 * 1024];
                    while (flooding.get()) {
                      var _ =
                          flood.send(
                              new ProducerRecord<>(Topics.NODE_EVENTS, "gpu-flood", junk),
                              (metadata, e) -> {
                                if (e == null) {
                                  floodedBytes.addAndGet(junk.length);
                                }
                              });
                    }
                  });
      // The steady node is connected (SASL, metadata) before the flood starts measuring it.
      heartbeats
          .send(new ProducerRecord<>(Topics.NODE_EVENTS, "gpu-steady", new byte[1]))
          .get(BOUND.toSeconds(), TimeUnit.SECONDS);
      int sent = 1;
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      List<Long> ackMs = java.util.Collections.synchronizedList(new ArrayList<>());
      long start = System.nanoTime();
      while (System.nanoTime() - start < FLOOD.toNanos()) {
        long at = System.nanoTime();
        acks.add(
            heartbeats.send(
                new ProducerRecord<>(
                    Topics.NODE_EVENTS,
                    "gpu-steady",
                    ("heartbeat " + sent).getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                (metadata, e) -> ackMs.add((System.nanoTime() - at) / 1_000_000)));
        sent++;
        // The heartbeat period of this test's node (an agent's is a few seconds): the wait is
        // the rate being tested, not a stand-in for a condition.
        Thread.sleep(200);
      }
      for (Future<RecordMetadata> ack : acks) {
        ack.get(BOUND.toSeconds(), TimeUnit.SECONDS);
      }
      heartbeatAckMs.addAll(ackMs);
      double seconds = (System.nanoTime() - start) / 1e9;
      flooding.set(false);
      floodThread.join(BOUND.toMillis());
      throttleMs = metric(flood, "produce-throttle-time-max");
      double floodRate = floodedBytes.get() / seconds;
      // Every heartbeat was acknowledged (each within the producer's bound, above) and is there.

      assertThat(throttleMs)
          .as("the broker throttled the flooding node's produce requests")
          .isPositive();
      // Kafka measures over its quota window (11 samples of 1 s) and lets a fresh client send
      // about one window's worth first; unthrottled, this loop sends tens of MiB/s.
      assertThat(floodRate)
          .as("the flooding node's acknowledged bytes per second, quota %d", PRODUCER_BYTE_RATE)
          .isLessThan(4.0 * PRODUCER_BYTE_RATE);
      double steadyThrottleMs = metric(heartbeats, "produce-throttle-time-max");
      assertThat(steadyThrottleMs)
          .as("the other node throttled far less than the flooding one")
          .isLessThan(throttleMs);
      assertThat(heartbeatAckMs)
          .as("the other node's heartbeats, each acknowledged within 2 s (its period is seconds)")
          .hasSize(acks.size())
          .allMatch(ms -> ms < 2000);
      assertThat(acks.size())
          .as("heartbeats sent every 200 ms")
          .isGreaterThanOrEqualTo((int) (FLOOD.toMillis() / 200.0 * 0.8));
      System.out.printf(
          "flood: %.0f B/s acknowledged (quota %d), throttled up to %.0f ms; other node throttled"
              + " up to %.0f ms, heartbeat acks (ms): %s%n",
          floodRate, PRODUCER_BYTE_RATE, throttleMs, steadyThrottleMs, heartbeatAckMs);
      assertThat(heartbeatsOnTheTopic("gpu-steady")).isEqualTo(sent);
    }
  }

  /**
   * What ACLs can and cannot keep from a node's user: no spec or command written, its own quota not
   * lifted. (They cannot keep it from writing records under another node's name: the signature
   * check dead-letters those, see NodeIdentityIT.)
   */
  @Test
  void aNodesUserCannotWriteSpecsOrCommandsNorLiftItsQuota() throws Exception {
    String user = admit("gpu-greedy");
    try (KafkaProducer<String, byte[]> producer = producer(user)) {
      for (String topic : List.of(Topics.NODE_DESIRED, Topics.NODE_COMMANDS)) {
        assertThatThrownBy(
                () ->
                    producer
                        .send(new ProducerRecord<>(topic, "gpu-greedy", new byte[1]))
                        .get(BOUND.toSeconds(), TimeUnit.SECONDS))
            .hasCauseInstanceOf(TopicAuthorizationException.class);
      }
    }
    Map<String, Object> settings = new HashMap<>(kafka.clientSettings(user, password(user)));
    settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) BOUND.toMillis());
    try (Admin admin = Admin.create(settings)) {
      ClientQuotaEntity self = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, user));
      assertThatThrownBy(
              () ->
                  admin
                      .alterClientQuotas(
                          List.of(
                              new ClientQuotaAlteration(
                                  self,
                                  List.of(
                                      new ClientQuotaAlteration.Op("producer_byte_rate", 1e12)))))
                      .all()
                      .get(BOUND.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(ClusterAuthorizationException.class);
    }
  }

  /**
   * The node's user on the broker as the User Operator makes it from {@link NodeKafkaUser}: its
   * SCRAM password, the ACLs of {@link KafkaAccess#AGENT} (which NodeKafkaUsersIT shows the
   * KafkaUser grants) and the quotas of its {@code spec.quotas}.
   */
  private static String admit(String node) throws Exception {
    var user = NodeKafkaUser.of(node, "kafka", settings());
    String name = user.getMetadata().getName();
    kafka.addUser(name, password(name), KafkaAccess.AGENT);
    KafkaUserQuotas quotas = user.getSpec().getQuotas();
    List<ClientQuotaAlteration.Op> ops = new ArrayList<>();
    // Kafka's quota names, as the User Operator writes spec.quotas.
    if (quotas != null && quotas.getProducerByteRate() != null) {
      ops.add(
          new ClientQuotaAlteration.Op(
              "producer_byte_rate", (double) quotas.getProducerByteRate()));
    }
    if (quotas != null && quotas.getConsumerByteRate() != null) {
      ops.add(
          new ClientQuotaAlteration.Op(
              "consumer_byte_rate", (double) quotas.getConsumerByteRate()));
    }
    if (quotas != null && quotas.getRequestPercentage() != null) {
      ops.add(
          new ClientQuotaAlteration.Op(
              "request_percentage", (double) quotas.getRequestPercentage()));
    }
    ClientQuotaEntity entity = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, name));
    try (Admin admin = superUser()) {
      admin
          .alterClientQuotas(List.of(new ClientQuotaAlteration(entity, ops)))
          .all()
          .get(BOUND.toSeconds(), TimeUnit.SECONDS);
      await("quotas of " + name + " in the broker's metadata")
          .atMost(BOUND)
          .until(
              () ->
                  admin
                          .describeClientQuotas(ClientQuotaFilter.all())
                          .entities()
                          .get(BOUND.toSeconds(), TimeUnit.SECONDS)
                          .getOrDefault(entity, Map.of())
                          .size()
                      == ops.size());
    }
    return name;
  }

  private static KafkaUserSettings settings() {
    return new KafkaUserSettings("kafka", "fleetwave", BOUND, PRODUCER_BYTE_RATE, 1048576, 10);
  }

  private static String password(String user) {
    return "password-of-" + user;
  }

  private static KafkaProducer<String, byte[]> producer(String user) {
    Map<String, Object> settings = new HashMap<>(kafka.clientSettings(user, password(user)));
    settings.put(ProducerConfig.ACKS_CONFIG, "all");
    settings.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    settings.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) BOUND.toMillis());
    settings.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) BOUND.toMillis() - 1000);
    return new KafkaProducer<>(settings, new StringSerializer(), new ByteArraySerializer());
  }

  private static double metric(KafkaProducer<?, ?> producer, String name) {
    return producer.metrics().entrySet().stream()
        .filter(
            e -> e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
        .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
        .filter(v -> !Double.isNaN(v))
        .max()
        .orElse(0);
  }

  /** How many of {@code node}'s records the topic holds (read by the operator's listener). */
  private static int heartbeatsOnTheTopic(String node) {
    Map<String, Object> settings =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false);
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(settings, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(Topics.NODE_EVENTS).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      consumer.assign(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      int count = 0;
      long deadline = System.nanoTime() + BOUND.toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the node events were not read within " + BOUND);
        }
        for (var record : consumer.poll(Duration.ofMillis(500))) {
          if (node.equals(record.key())) {
            count++;
          }
        }
      }
      return count;
    }
  }

  private static Admin superUser() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            (int) BOUND.toMillis()));
  }
}
