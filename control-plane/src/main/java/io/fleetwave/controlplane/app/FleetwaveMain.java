package io.fleetwave.controlplane.app;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * The production entry point. Refuses to start (exit code 2, a message naming the settings) when
 * Kafka, PostgreSQL or the identity provider is not configured: a control plane that waited on
 * {@code localhost:9092} would look alive while projecting nothing, and one without a provider
 * would refuse every API call. One database URL is enough: Flyway's JDBC URL (with the reactive
 * pool's TLS settings) and the credentials are derived from it. With {@code
 * FLEETWAVE_DATABASE_REQUIRE_TLS=true} it also refuses settings that allow a plain connection to
 * PostgreSQL.
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
    refusePlainDatabaseConnectionsOrExit(settings);
    Quarkus.run(FleetwaveApplication.class, args);
  }

  /**
   * With {@code FLEETWAVE_DATABASE_REQUIRE_TLS=true}, ends the JVM before any connection is made
   * when the reactive pool or Flyway could reach PostgreSQL in plain text.
   */
  static void refusePlainDatabaseConnectionsOrExit(ServiceSettings settings) {
    try {
      if (!settings.plainDatabaseConnections().isEmpty()) {
        System.err.println(settings.plainDatabaseRefusal());
        System.exit(EXIT_MISCONFIGURED);
      }
    } catch (IllegalArgumentException e) {
      System.err.println("fleetwave: the control plane cannot start: " + e.getMessage());
      System.exit(EXIT_MISCONFIGURED);
    }
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
