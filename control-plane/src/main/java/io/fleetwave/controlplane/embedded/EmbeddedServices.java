package io.fleetwave.controlplane.embedded;

import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import java.util.Map;
import java.util.Properties;
import org.jboss.logging.Logger;

/**
 * The embedded Kafka broker and PostgreSQL server the control plane starts for itself when no
 * external ones are configured, and the system properties that point Quarkus at them.
 */
public final class EmbeddedServices implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(EmbeddedServices.class);

  private final EmbeddedKafka kafka;
  private final EmbeddedPostgres postgres;

  private EmbeddedServices(EmbeddedKafka kafka, EmbeddedPostgres postgres) {
    this.kafka = kafka;
    this.postgres = postgres;
  }

  /** Starts what {@code external} lacks and sets the matching system properties. */
  public static EmbeddedServices startMissing(ExternalServices external, Properties system) {
    EmbeddedPostgres postgres = null;
    EmbeddedKafka kafka = null;
    try {
      if (!external.postgres()) {
        LOG.info("no datasource URL configured: starting an embedded PostgreSQL");
        postgres = EmbeddedPostgres.start();
        datasourceProperties(postgres).forEach(system::setProperty);
      }
      if (!external.kafka()) {
        LOG.info("no Kafka bootstrap servers configured: starting an embedded Kafka broker");
        kafka = EmbeddedKafka.start();
        FleetTopics.create(kafka);
        system.setProperty("kafka.bootstrap.servers", kafka.bootstrapServers());
      }
      return new EmbeddedServices(kafka, postgres);
    } catch (RuntimeException e) {
      new EmbeddedServices(kafka, postgres).close();
      throw e;
    }
  }

  /** The Quarkus configuration that points the reactive pool and Flyway at {@code postgres}. */
  public static Map<String, String> datasourceProperties(EmbeddedPostgres postgres) {
    return Map.of(
        "quarkus.datasource.reactive.url",
        postgres.reactiveUrl(),
        "quarkus.datasource.jdbc.url",
        postgres.jdbcUrl(),
        "quarkus.datasource.username",
        EmbeddedPostgres.USER,
        "quarkus.datasource.password",
        EmbeddedPostgres.PASSWORD);
  }

  /** Quarkus has closed its log handlers by the time the services stop: say it on stderr. */
  private static void stopped(String message) {
    System.err.println("fleetwave: " + message);
  }

  @Override
  public void close() {
    if (kafka != null) {
      try {
        kafka.close();
        stopped("embedded Kafka broker stopped");
      } catch (RuntimeException e) {
        LOG.warnf(e, "embedded Kafka broker did not stop cleanly");
      }
    }
    if (postgres != null) {
      try {
        postgres.close();
        stopped("embedded PostgreSQL stopped");
      } catch (RuntimeException e) {
        LOG.warnf(e, "embedded PostgreSQL did not stop cleanly");
      }
    }
  }
}
