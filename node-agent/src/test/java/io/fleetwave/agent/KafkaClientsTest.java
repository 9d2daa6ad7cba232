package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientsTest {
  @TempDir Path dir;

  private Path file(String text) throws IOException {
    return Files.writeString(dir.resolve("kafka.properties"), text);
  }

  private static KafkaClients clients(Map<String, String> env, String... args) {
    return KafkaClients.of(AgentOptions.parse(args, env));
  }

  @Test
  void theFilesBootstrapServersAreUsedWhenNothingElseNamesThem() throws IOException {
    Path path = file("bootstrap.servers=kafka:9093\nsecurity.protocol=SSL\n");

    KafkaClients kafka = clients(Map.of(), "--kafka-config", path.toString());

    assertThat(kafka.bootstrapServers()).isEqualTo("kafka:9093");
    assertThat(kafka.overrides()).isEqualTo(Map.of("security.protocol", "SSL"));
  }

  @Test
  void theBootstrapOptionWinsOverTheFile() throws IOException {
    Path path = file("bootstrap.servers=kafka:9093\n");

    KafkaClients kafka =
        clients(Map.of(), "--kafka-config", path.toString(), "--bootstrap", "other:9092");

    assertThat(kafka.bootstrapServers()).isEqualTo("other:9092");
  }

  @Test
  void theBootstrapVariableWinsOverTheFileNamedByItsVariable() throws IOException {
    Path path = file("bootstrap.servers=kafka:9093\n");

    KafkaClients kafka =
        clients(
            Map.of(
                "FLEETWAVE_KAFKA_CONFIG",
                path.toString(),
                "FLEETWAVE_KAFKA_BOOTSTRAP",
                "env:9092"));

    assertThat(kafka.bootstrapServers()).isEqualTo("env:9092");
  }

  @Test
  void aFileWithoutBootstrapServersNeedsTheOption() throws IOException {
    Path path = file("security.protocol=SSL\n");

    assertThatThrownBy(() -> clients(Map.of(), "--kafka-config", path.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "no Kafka bootstrap servers: give --bootstrap, FLEETWAVE_KAFKA_BOOTSTRAP or"
                + " bootstrap.servers in "
                + path);
  }

  @Test
  void withoutAFileTheClientsGetNothingExtra() {
    KafkaClients kafka = clients(Map.of(), "--bootstrap", "k:9092");

    assertThat(kafka.overrides()).isEmpty();
    assertThat(kafka.file()).isEmpty();
  }
}
