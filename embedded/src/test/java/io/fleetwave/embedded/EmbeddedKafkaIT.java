package io.fleetwave.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The embedded Kafka broker: a record round trip, and a stop and restart that keeps its records.
 */
class EmbeddedKafkaIT {
  @Test
  void kafkaBrokerRoundTripsARecord() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics(1, "probe");
      try (var producer =
          new KafkaProducer<String, String>(
              Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
              new StringSerializer(),
              new StringSerializer())) {
        producer.send(new ProducerRecord<>("probe", "k", "hello")).get();
      }
      try (var consumer =
          new KafkaConsumer<String, String>(
              Map.of(
                  ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                  ConsumerConfig.GROUP_ID_CONFIG, "probe",
                  ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
              new StringDeserializer(),
              new StringDeserializer())) {
        consumer.subscribe(List.of("probe"));
        ConsumerRecords<String, String> records = ConsumerRecords.empty();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (records.isEmpty() && System.nanoTime() < deadline) {
          records = consumer.poll(Duration.ofMillis(200));
        }
        assertThat(records.iterator().next().value()).isEqualTo("hello");
      }
    }
  }

  @Test
  void kafkaBrokerStoppedRestartsOnTheSamePortWithItsRecords() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics(1, "kept");
      String servers = kafka.bootstrapServers();
      Map<String, Object> producerConfig =
          Map.of(
              ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
              ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000,
              ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 3_000,
              ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000);
      try (var producer =
          new KafkaProducer<String, String>(
              producerConfig, new StringSerializer(), new StringSerializer())) {
        producer.send(new ProducerRecord<>("kept", "k", "before")).get();
        kafka.stopBroker();
        assertThatThrownBy(() -> producer.send(new ProducerRecord<>("kept", "k", "lost")).get())
            .as("nothing accepts records while the broker is stopped")
            .isInstanceOf(ExecutionException.class);
        kafka.restartBroker();
        assertThat(kafka.bootstrapServers()).isEqualTo(servers);
        producer.send(new ProducerRecord<>("kept", "k", "after")).get();
      }
      assertThat(readAll(kafka, "kept")).containsExactly("before", "after");
    }
  }

  private static List<String> readAll(EmbeddedKafka kafka, String topic) {
    try (var consumer =
        new KafkaConsumer<String, String>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "read-" + topic,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      List<String> values = new java.util.ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (values.size() < 2 && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
      return values;
    }
  }
}
