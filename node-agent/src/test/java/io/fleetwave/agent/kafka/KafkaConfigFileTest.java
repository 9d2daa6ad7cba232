package io.fleetwave.agent.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fleetwave.agent.desired.CommandFollower;
import io.fleetwave.agent.publish.EventPublisher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class KafkaConfigFileTest {
  private static final String SASL =
      """
      # the agent's Kafka credentials (a mounted Secret)
      security.protocol=SASL_SSL
      sasl.mechanism=SCRAM-SHA-512
      sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\
          username="agent" \\
          password="s3cret-Pa55";
      ssl.truststore.location=/etc/fleetwave/kafka/ca.p12
      ssl.truststore.password=store-Pa55

      client.id=fleetwave-agent-gpu-7
      linger.ms=20
      """;

  @TempDir Path dir;

  private Path file(String text) throws IOException {
    return Files.writeString(dir.resolve("kafka.properties"), text);
  }

  private Map<String, Object> producer(KafkaConfigFile file) {
    return EventPublisher.producerConfig(
        EventPublisher.Settings.of("broker:9093").withOverrides(file.overrides()));
  }

  private Map<String, Object> consumer(KafkaConfigFile file) {
    return CommandFollower.consumerConfig(
        new CommandFollower.Settings(
                "broker:9093",
                "desired",
                "commands",
                Duration.ofSeconds(10),
                Duration.ofSeconds(30),
                Map.of())
            .withOverrides(file.overrides()));
  }

  @Test
  void securitySettingsGoIntoThePublishersProducerAndTheFollowersConsumer() throws IOException {
    KafkaConfigFile file = KafkaConfigFile.load(file(SASL));

    for (Map<String, Object> config : java.util.List.of(producer(file), consumer(file))) {
      assertThat(config)
          .containsEntry("security.protocol", "SASL_SSL")
          .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
          .containsEntry("ssl.truststore.location", "/etc/fleetwave/kafka/ca.p12")
          .containsEntry("ssl.truststore.password", "store-Pa55")
          .containsEntry("client.id", "fleetwave-agent-gpu-7")
          .containsEntry("bootstrap.servers", "broker:9093");
      assertThat((String) config.get("sasl.jaas.config"))
          .startsWith("org.apache.kafka.common.security.scram.ScramLoginModule required ")
          .contains("username=\"agent\" ", "password=\"s3cret-Pa55\";");
    }
  }

  @Test
  void tuningFromTheFileReplacesThePublishersDefaultButNotItsGuarantees() throws IOException {
    Map<String, Object> producer = producer(KafkaConfigFile.load(file(SASL)));

    assertThat(producer)
        .containsEntry("linger.ms", "20")
        .containsEntry("acks", "all")
        .containsEntry("enable.idempotence", true);
  }

  @Test
  void bootstrapServersInTheFileIsKeptApartFromTheOverrides() throws IOException {
    KafkaConfigFile file =
        KafkaConfigFile.load(file("bootstrap.servers = kafka-0:9093,kafka-1:9093\n"));

    assertThat(file.bootstrapServers()).contains("kafka-0:9093,kafka-1:9093");
    assertThat(file.overrides()).isEmpty();
  }

  static Stream<String> ownedKeys() {
    return Stream.concat(
        ClientOverrides.OWNED.keySet().stream().sorted(),
        Stream.of("group.id", "group.instance.id"));
  }

  @ParameterizedTest
  @MethodSource("ownedKeys")
  void aKeyTheAgentSetsItselfIsRefusedNamingTheKeyAndTheLine(String key) throws IOException {
    Path path = file("security.protocol=SSL\n" + key + "=x\n");

    assertThatThrownBy(() -> KafkaConfigFile.load(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "--kafka-config "
                + path
                + ": line 2: "
                + key
                + " is set by the agent and cannot be"
                + " overridden (");
  }

  @Test
  void everySettingTheClientsFixThemselvesIsOwned() {
    Set<String> producerFixed =
        new HashSet<>(EventPublisher.producerConfig(EventPublisher.Settings.of("b:1")).keySet());
    producerFixed.removeAll(Set.of("linger.ms", "compression.type", "batch.size", "client.id"));
    producerFixed.remove("bootstrap.servers");
    Set<String> consumerFixed =
        new HashSet<>(
            CommandFollower.consumerConfig(
                    new CommandFollower.Settings(
                        "b:1", "d", "c", Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of()))
                .keySet());
    consumerFixed.removeAll(Set.of("client.id", "bootstrap.servers"));

    assertThat(ClientOverrides.OWNED).containsKeys(producerFixed.toArray(String[]::new));
    assertThat(ClientOverrides.OWNED).containsKeys(consumerFixed.toArray(String[]::new));
  }

  @Test
  void thePublisherRefusesAnOwnedKeyPassedInCode() {
    assertThatThrownBy(() -> EventPublisher.Settings.of("b:1").withOverrides(Map.of("acks", "1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("acks is set by the agent and cannot be overridden");
  }

  /**
   * Each file line that cannot be read, and what the refusal says of it: the line by number (the
   * continuation lines counted), never its text, which may be a secret.
   */
  static Stream<Arguments> unreadableLines() {
    return Stream.of(
        arguments("security.protocol=SASL_SSL\n\n# comment\nhunter2\n", "line 4 is not key=value"),
        arguments(SASL + "oops\n", "line 12 is not key=value"),
        arguments(
            "client.id=a\nsasl.jaas.config=x \\u12G4 y\n", "line 2 has a malformed \\uXXXX escape"),
        arguments(
            "sasl.mechanism=PLAIN\nclient.id=a\nsasl.mechanism: SCRAM-SHA-256\n",
            "line 3 sets sasl.mechanism again (line 1)"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("unreadableLines")
  void aLineThatCannotBeReadIsRefusedByNumber(String text, String reason) throws IOException {
    Path path = file(text);

    assertThatThrownBy(() -> KafkaConfigFile.load(path))
        .hasMessage("--kafka-config " + path + ": " + reason);
  }

  @Test
  void anEmptyValueAfterASeparatorIsASetting() throws IOException {
    KafkaConfigFile file = KafkaConfigFile.load(file("ssl.endpoint.identification.algorithm=\n"));

    assertThat(file.overrides()).containsEntry("ssl.endpoint.identification.algorithm", "");
  }

  @Test
  void aMissingFileIsRefusedNamingIt() {
    Path path = dir.resolve("absent.properties");

    assertThatThrownBy(() -> KafkaConfigFile.load(path))
        .hasMessage("--kafka-config " + path + ": no such file");
  }

  @Test
  void aDirectoryIsRefusedNamingIt() {
    assertThatThrownBy(() -> KafkaConfigFile.load(dir))
        .hasMessageStartingWith("--kafka-config " + dir + ": cannot read it: ");
  }

  @Test
  void theDescriptionHidesPasswordsTheJaasConfigAndKeysKafkaDoesNotKnow() throws IOException {
    KafkaConfigFile file =
        KafkaConfigFile.load(file(SASL + "bootstrap.servers=k:9093\nx.custom.secret=abc\n"));

    String described = file.describe();

    assertThat(described)
        .contains(
            "bootstrap.servers=k:9093",
            "security.protocol=SASL_SSL",
            "sasl.jaas.config=[hidden]",
            "ssl.truststore.password=[hidden]",
            "ssl.truststore.location=/etc/fleetwave/kafka/ca.p12",
            "x.custom.secret=[hidden]")
        .doesNotContain("s3cret-Pa55", "store-Pa55", "abc");
  }
}
