package io.fleetwave.controlplane.app;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * The production entry point. Refuses to start (exit code 2, a message naming the settings) when
 * Kafka, PostgreSQL or the identity provider is not configured: a control plane that waited on
 * {@code localhost:9092} would look alive while projecting nothing, and one without a provider
 * would refuse every API call. One database URL is enough: Flyway's JDBC URL and the credentials
 * are derived from it.
 */
@QuarkusMain
public final class FleetwaveMain {
  static final int EXIT_MISCONFIGURED = 2;

  private FleetwaveMain() {}

  public static void main(String... args) {
    ServiceSettings settings = ServiceSettings.of(System.getenv(), System.getProperties());
    if (!settings.missing().isEmpty()) {
      System.err.println(settings.refusal());
      System.exit(EXIT_MISCONFIGURED);
    }
    completeDatabaseSettingsOrExit(settings);
    Quarkus.run(FleetwaveApplication.class, args);
  }

  /**
   * Sets the database properties derived from the one URL given (also for the demo, which may be
   * pointed at a real PostgreSQL); a URL that is not PostgreSQL ends the JVM with the reason.
   */
  public static void completeDatabaseSettingsOrExit(ServiceSettings settings) {
    try {
      settings.derivedDatabaseProperties().forEach(System::setProperty);
    } catch (IllegalArgumentException e) {
      System.err.println("fleetwave: the control plane cannot start: " + e.getMessage());
      System.exit(EXIT_MISCONFIGURED);
    }
  }
}
