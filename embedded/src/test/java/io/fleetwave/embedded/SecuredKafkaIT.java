package io.fleetwave.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.Topics;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SASL_SSL broker itself: TLS and SCRAM on its listener, ACLs enforced, nothing by default. */
class SecuredKafkaIT {
  @TempDir static Path dir;
  private static SecuredKafka kafka;

  @BeforeAll
  static void start() {
    kafka = SecuredKafka.start(dir);
    FleetTopics.create(kafka);
    kafka.addUser("agent", "agent-secret", KafkaAccess.AGENT);
    kafka.addUser("nobody", "nobody-secret", List.of());
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  @Test
  void aUserWithItsGrantWritesOverTlsWithScram() throws Exception {
    try (var producer = producer(kafka.clientSettings("agent", "agent-secret"))) {
      assertThat(send(producer, Topics.NODE_EVENTS).offset()).isNotNegative();
    }
  }

  @Test
  void aWrongPasswordIsRefusedByTheBroker() {
    try (var producer = producer(kafka.clientSettings("agent", "not-the-secret"))) {
      assertThatThrownBy(() -> send(producer, Topics.NODE_EVENTS))
          .isInstanceOf(SaslAuthenticationException.class)
          .hasMessageContaining("invalid credentials");
    }
  }

  @Test
  void aUserIsRefusedWhatNoAclGrantsIt() {
    try (var producer = producer(kafka.clientSettings("nobody", "nobody-secret"))) {
      assertThatThrownBy(() -> send(producer, Topics.NODE_EVENTS))
          .isInstanceOf(TopicAuthorizationException.class);
    }
    try (var producer = producer(kafka.clientSettings("agent", "agent-secret"))) {
      assertThatThrownBy(() -> send(producer, Topics.NODE_DESIRED))
          .isInstanceOf(TopicAuthorizationException.class);
    }
  }

  private static KafkaProducer<String, String> producer(Map<String, String> settings) {
    Map<String, Object> config = new HashMap<>(settings);
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
    config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
  }

  private static org.apache.kafka.clients.producer.RecordMetadata send(
      KafkaProducer<String, String> producer, String topic) throws Exception {
    try {
      return producer.send(new ProducerRecord<>(topic, "node-1", "x")).get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }
}
