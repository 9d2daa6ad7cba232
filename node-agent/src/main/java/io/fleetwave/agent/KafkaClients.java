package io.fleetwave.agent;

import io.fleetwave.agent.kafka.KafkaConfigFile;
import java.util.Map;
import java.util.Optional;

/**
 * Where the agent's Kafka is and what its clients add to their own settings: the bootstrap servers
 * from --bootstrap (or FLEETWAVE_KAFKA_BOOTSTRAP), else from the --kafka-config file; the file's
 * other settings go into every client.
 *
 * @param file the --kafka-config file, if one was given
 */
record KafkaClients(
    String bootstrapServers, Map<String, Object> overrides, Optional<KafkaConfigFile> file) {

  KafkaClients {
    overrides = Map.copyOf(overrides);
  }

  /**
   * @throws IllegalArgumentException when the file cannot be read or is refused, or no bootstrap
   *     servers are given anywhere
   */
  static KafkaClients of(AgentOptions options) {
    Optional<KafkaConfigFile> file = options.kafkaConfig().map(KafkaConfigFile::load);
    String bootstrap =
        options
            .bootstrapServers()
            .or(() -> file.flatMap(KafkaConfigFile::bootstrapServers))
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no Kafka bootstrap servers: give --bootstrap, FLEETWAVE_KAFKA_BOOTSTRAP"
                            + " or bootstrap.servers in "
                            + file.map(f -> f.file().toString()).orElse("a --kafka-config file")));
    return new KafkaClients(bootstrap, file.map(KafkaConfigFile::overrides).orElse(Map.of()), file);
  }
}
