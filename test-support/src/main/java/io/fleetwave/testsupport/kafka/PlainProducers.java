package io.fleetwave.testsupport.kafka;

import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Producers for tests that write records to a test broker themselves (standing in for the control
 * plane or an operator, or writing what no agent would): keyed by a string, on the client's
 * defaults. The caller closes them.
 */
public final class PlainProducers {
  private PlainProducers() {}

  /** Values as bytes: encoded envelopes, or whatever a reader is to be shown. */
  public static KafkaProducer<String, byte[]> ofBytes(String bootstrapServers) {
    return create(bootstrapServers, new ByteArraySerializer());
  }

  public static KafkaProducer<String, String> ofStrings(String bootstrapServers) {
    return create(bootstrapServers, new StringSerializer());
  }

  private static <V> KafkaProducer<String, V> create(
      String bootstrapServers, Serializer<V> values) {
    return new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers),
        new StringSerializer(),
        values);
  }
}
