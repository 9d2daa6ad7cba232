package io.fleetwave.controlplane.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.testsupport.kafka.PlainProducers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Reading a whole topic once, against a real broker. */
class TopicToEndIT {
  private static final Duration BOUND = Duration.ofSeconds(20);
  private static EmbeddedKafka kafka;
  private static KafkaProducer<String, String> producer;

  @BeforeAll
  static void broker() {
    kafka = EmbeddedKafka.start();
    kafka.createTopics(4, "to-end.filled", "to-end.growing", "to-end.empty", "to-end.slow");
    producer = PlainProducers.ofStrings(kafka.bootstrapServers());
  }

  @AfterAll
  static void stop() {
    producer.close();
    kafka.close();
  }

  private static KafkaConsumer<String, String> consumer(int maxPollRecords) {
    return consumer(maxPollRecords, Map.of());
  }

  private static KafkaConsumer<String, String> consumer(
      int maxPollRecords, Map<String, Object> more) {
    Map<String, Object> application = new HashMap<>(more);
    application.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    application.put(ConsumerConfig.GROUP_ID_CONFIG, "never-joined");
    return new KafkaConsumer<>(
        KafkaClientConfig.assigningConsumer(application, maxPollRecords),
        new StringDeserializer(),
        new StringDeserializer());
  }

  /** One request per record, so each is a record batch of its own (about 1 KiB). */
  private static void send(String topic, int partition, String prefix, int count) throws Exception {
    String padding = "x".repeat(1000);
    for (int i = 0; i < count; i++) {
      producer
          .send(new ProducerRecord<>(topic, partition, "k", prefix + "-" + i + padding))
          .get(10, TimeUnit.SECONDS);
    }
  }

  private static void publish(String topic, String prefix, int count) throws Exception {
    for (int i = 0; i < count; i++) {
      producer
          .send(new ProducerRecord<>(topic, prefix + "-key-" + i, prefix + "-" + i))
          .get(10, TimeUnit.SECONDS);
    }
  }

  private static List<String> values(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(ConsumerRecord::value).sorted().toList();
  }

  @Test
  void everyRecordOfEveryPartitionIsReadOnceAndTheEndOffsetsAreReturned() throws Exception {
    publish("to-end.filled", "r", 40);
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = consumer(3)) {
      Map<TopicPartition, Long> ends =
          TopicToEnd.read(consumer, "to-end.filled", BOUND, records::addAll);

      assertThat(ends).hasSize(4);
      assertThat(ends.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(40);
    }
    assertThat(records).hasSize(40);
    assertThat(values(records)).doesNotHaveDuplicates();
  }

  @Test
  void recordsAppendedDuringTheReadAreNotHandedOver() throws Exception {
    // Partition 0 is read to its end at once; partition 1 takes many small fetches, so records
    // appended to partition 0 meanwhile are fetched while partition 1 is still behind.
    send("to-end.growing", 0, "before", 1);
    send("to-end.growing", 1, "before", 100);
    AtomicBoolean appended = new AtomicBoolean();
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        consumer(500, Map.of(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1024))) {
      TopicToEnd.read(
          consumer,
          "to-end.growing",
          BOUND,
          batch -> {
            records.addAll(batch);
            if (!batch.isEmpty() && appended.compareAndSet(false, true)) {
              try {
                send("to-end.growing", 0, "after", 20);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            }
          });
    }
    assertThat(appended).isTrue();
    assertThat(records.stream().filter(r -> r.value().startsWith("after-")).count()).isZero();
    assertThat(records).hasSize(101);
  }

  @Test
  void anEmptyTopicIsReadAtOnce() {
    try (KafkaConsumer<String, String> consumer = consumer(10)) {
      assertThat(TopicToEnd.readAll(consumer, "to-end.empty", BOUND)).isEmpty();
    }
  }

  @Test
  void aReadPastItsBoundFailsNamingTheTopicTheBoundAndTheStage() throws Exception {
    publish("to-end.slow", "slow", 4);
    try (KafkaConsumer<String, String> consumer = consumer(1)) {
      assertThatThrownBy(
              () ->
                  TopicToEnd.read(
                      consumer,
                      "to-end.slow",
                      Duration.ofMillis(1500),
                      batch -> {
                        try {
                          Thread.sleep(2000); // work on a batch that outlasts the whole bound
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                      }))
          .isInstanceOf(TopicToEnd.TopicReadTimeoutException.class)
          .hasMessageStartingWith("could not read to-end.slow to its end within 1.5 s (");
    }
  }
}
