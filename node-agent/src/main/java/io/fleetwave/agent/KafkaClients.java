package io.fleetwave.agent;

import io.fleetwave.agent.identity.KafkaLogin;
import io.fleetwave.agent.kafka.KafkaConfigFile;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;

/**
 * Where the agent's Kafka is and what its clients add to their own settings: the bootstrap servers
 * from --bootstrap (or FLEETWAVE_KAFKA_BOOTSTRAP), else from the --kafka-config file; the file's
 * other settings go into every client. Where enrolment gives the node its own Kafka user, every
 * client logs in as that user instead ({@link #loggedInAs}).
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

  /**
   * These clients logged in as the node's own Kafka user: its SASL mechanism and JAAS login in
   * place of whatever the --kafka-config file gave (the fleet's shared agent user, or none).
   *
   * @throws IllegalArgumentException when the settings speak no SASL (security.protocol must be
   *     SASL_SSL or SASL_PLAINTEXT, the listener the node's user logs in on)
   */
  KafkaClients loggedInAs(KafkaLogin login) {
    String protocol =
        String.valueOf(
            overrides.getOrDefault(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT"));
    if (!protocol.startsWith("SASL_")) {
      throw new IllegalArgumentException(
          "the control plane gave this node its own Kafka user "
              + login.username()
              + " ("
              + login.mechanism()
              + "), but the Kafka settings"
              + file.map(f -> " of " + f.file()).orElse("")
              + " say security.protocol="
              + protocol
              + ": set SASL_SSL and the bootstrap of the listener Kafka users log in on");
    }
    Map<String, Object> loggedIn = new HashMap<>(overrides);
    loggedIn.put(SaslConfigs.SASL_MECHANISM, login.mechanism());
    loggedIn.put(SaslConfigs.SASL_JAAS_CONFIG, login.jaasConfig());
    return new KafkaClients(bootstrapServers, loggedIn, file);
  }
}
