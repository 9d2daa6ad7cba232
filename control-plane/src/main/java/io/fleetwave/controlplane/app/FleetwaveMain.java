package io.fleetwave.controlplane.app;

import io.fleetwave.controlplane.kafka.KafkaRefusal;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * The production entry point. Refuses to start (exit code 2, a message naming the settings) when
 * Kafka or PostgreSQL is not configured: a control plane that waited on {@code localhost:9092}
 * would look alive while projecting nothing. One database URL is enough: Flyway's JDBC URL and the
 * credentials are derived from it.
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
    Quarkus.run(FleetwaveApplication.class, FleetwaveMain::exit, args);
  }

  /**
   * Quarkus' exit, with one line first when the start failed because Kafka refused the control
   * plane's credentials or ACLs: Quarkus logs the failure as a stack trace whose last cause names
   * Kafka's exception; this says what it means and which settings to look at.
   */
  private static void exit(int code, Throwable failure) {
    KafkaRefusal.of(failure)
        .ifPresent(why -> System.err.println("fleetwave: the control plane cannot start: " + why));
    System.exit(code);
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
