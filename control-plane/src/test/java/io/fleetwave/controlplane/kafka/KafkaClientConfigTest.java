package io.fleetwave.controlplane.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaClientConfigTest {
  private static final Map<String, Object> APPLICATION =
      Map.of(
          "bootstrap.servers", "kafka:9093",
          "security.protocol", "SASL_SSL",
          "sasl.jaas.config", "secret",
          "group.id", "fleetwave-projection",
          "group.instance.id", "cp-1",
          "key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer",
          "value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer",
          "linger.ms", 5);

  @Test
  void connectionSecurityAndTuningAreKeptGroupAndSerializersAreLeftOut() {
    assertThat(KafkaClientConfig.shared(APPLICATION))
        .containsOnlyKeys("bootstrap.servers", "security.protocol", "sasl.jaas.config", "linger.ms")
        .containsEntry("sasl.jaas.config", "secret");
  }

  @Test
  void anAssigningConsumerNeverCommitsAndBoundsItsPolls() {
    assertThat(KafkaClientConfig.assigningConsumer(APPLICATION, 5000))
        .doesNotContainKeys("group.id", "group.instance.id", "key.deserializer")
        .containsEntry("enable.auto.commit", false)
        .containsEntry("max.poll.records", 5000);
  }

  @Test
  void theApplicationsMapIsNotChanged() {
    Map<String, Object> application = new java.util.HashMap<>(APPLICATION);
    KafkaClientConfig.shared(application).clear();
    assertThat(application).isEqualTo(APPLICATION);
  }
}
