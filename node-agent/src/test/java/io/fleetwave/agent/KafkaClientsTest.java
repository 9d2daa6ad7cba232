package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.agent.identity.KafkaLogin;
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

  @Test
  void theNodesOwnLoginReplacesTheSharedUsersLogin() throws IOException {
    Path path =
        file(
            "bootstrap.servers=kafka:9094\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
                + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"fleetwave-agent\" password=\"shared\";\n");

    KafkaClients kafka =
        clients(Map.of(), "--kafka-config", path.toString())
            .loggedInAs(new KafkaLogin("node-gpu-7", "pa\"ss\\word", "SCRAM-SHA-512"));

    assertThat(kafka.overrides())
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry(
            "sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"node-gpu-7\" password=\"pa\\\"ss\\\\word\";");
  }

  @Test
  void aNodeLoginOverSettingsWithoutSaslIsRefusedNamingTheProtocol() throws IOException {
    Path path = file("bootstrap.servers=kafka:9093\nsecurity.protocol=SSL\n");
    KafkaClients kafka = clients(Map.of(), "--kafka-config", path.toString());

    assertThatThrownBy(() -> kafka.loggedInAs(new KafkaLogin("node-gpu-7", "pw", "SCRAM-SHA-512")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("own Kafka user node-gpu-7")
        .hasMessageContaining("security.protocol=SSL")
        .hasMessageContaining("SASL_SSL");
  }
}
