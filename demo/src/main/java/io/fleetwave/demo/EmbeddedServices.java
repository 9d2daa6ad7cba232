package io.fleetwave.demo;

import io.fleetwave.controlplane.app.ServiceSettings;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.jboss.logging.Logger;

/**
 * The embedded Kafka broker and PostgreSQL server the demo starts for whichever of the two is not
 * configured, and the system properties that point Quarkus at them. Demo only: their data lives in
 * a temporary directory deleted when the demo stops, which is why the production control plane
 * refuses to start without real ones. PostgreSQL runs with its production durability (every commit
 * flushed), as the tests and the benches do.
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
  public static EmbeddedServices startMissing(ServiceSettings external, Properties system) {
    EmbeddedPostgres postgres = null;
    EmbeddedKafka kafka = null;
    try {
      if (!external.postgresConfigured()) {
        LOG.info("no datasource URL configured: starting an embedded PostgreSQL");
        postgres = EmbeddedPostgres.start();
        postgres.quarkusDatasourceProperties().forEach(system::setProperty);
      }
      if (!external.kafkaConfigured()) {
        LOG.info("no Kafka bootstrap servers configured: starting an embedded Kafka broker");
        kafka = startKafkaIntoTheLog();
        FleetTopics.create(kafka);
        system.setProperty("kafka.bootstrap.servers", kafka.bootstrapServers());
      }
      return new EmbeddedServices(kafka, postgres);
    } catch (RuntimeException e) {
      new EmbeddedServices(kafka, postgres).close();
      throw e;
    }
  }

  /**
   * Kafka's storage formatter prints its "Formatting metadata directory" line to System.out (the
   * test kit gives it no stream of its own): into the log file with the broker's other lines. The
   * demo's main thread is the only one running here, so nothing else prints meanwhile.
   */
  private static EmbeddedKafka startKafkaIntoTheLog() {
    PrintStream console = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      return EmbeddedKafka.start();
    } finally {
      System.setOut(console);
      printed.toString(StandardCharsets.UTF_8).lines().forEach(LOG::info);
    }
  }

  /** Quarkus has closed its log handlers by the time the services stop: say it on stderr. */
  private static void stopped(String message) {
    System.err.println("fleetwave: " + message);
  }

  @Override
  public void close() {
    stop(kafka, "embedded Kafka broker");
    stop(postgres, "embedded PostgreSQL");
  }

  /**
   * Stops the service if it was started; a failure is said, not thrown, so that the other service
   * stops too. (Neither service's close throws a checked exception.)
   */
  private static void stop(AutoCloseable service, String name) {
    if (service == null) {
      return;
    }
    try {
      service.close();
      stopped(name + " stopped");
    } catch (Exception e) {
      stopped(name + " did not stop cleanly: " + e.getMessage());
    }
  }
}
