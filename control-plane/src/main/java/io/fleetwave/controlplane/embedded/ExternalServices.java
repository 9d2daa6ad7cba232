package io.fleetwave.controlplane.embedded;

import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Which backing services the operator configured: Kafka through {@code KAFKA_BOOTSTRAP_SERVERS} /
 * {@code -Dkafka.bootstrap.servers}, PostgreSQL through the Quarkus datasource URLs (environment or
 * system properties). Whatever is not configured is started embedded.
 */
public record ExternalServices(boolean kafka, boolean postgres) {
  public static ExternalServices detect(Map<String, String> env, Properties system) {
    boolean kafka =
        present(env, "KAFKA_BOOTSTRAP_SERVERS") || present(system, "kafka.bootstrap.servers");
    boolean postgres =
        Stream.of("QUARKUS_DATASOURCE_REACTIVE_URL", "QUARKUS_DATASOURCE_JDBC_URL")
                .anyMatch(name -> present(env, name))
            || Stream.of("quarkus.datasource.reactive.url", "quarkus.datasource.jdbc.url")
                .anyMatch(name -> present(system, name));
    return new ExternalServices(kafka, postgres);
  }

  private static boolean present(Map<String, String> env, String name) {
    String value = env.get(name);
    return value != null && !value.isBlank();
  }

  private static boolean present(Properties system, String name) {
    String value = system.getProperty(name);
    return value != null && !value.isBlank();
  }
}
