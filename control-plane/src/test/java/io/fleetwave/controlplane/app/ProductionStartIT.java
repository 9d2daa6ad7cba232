package io.fleetwave.controlplane.app;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.RunsLast;
import io.fleetwave.controlplane.fixtures.TestRsaKeys;
import io.fleetwave.embedded.EmbeddedIdentity;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.testsupport.processes.JavaCommand;
import io.fleetwave.testsupport.services.KafkaExtension;
import io.fleetwave.testsupport.services.PostgresExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged production control plane ({@code target/quarkus-app}) as an operator starts it: it
 * refuses to run without Kafka and PostgreSQL instead of waiting on defaults, and one database URL
 * is all it needs.
 */
@ExtendWith({KafkaExtension.class, PostgresExtension.class})
// Last in its fork (NoQuarkusItsSuite), after the tests with a database of their own: as far as it
// can from the first minutes, when the other two forks build their Quarkus applications.
@RunsLast
class ProductionStartIT {
  private static final Path APP = Path.of("target", "quarkus-app");
  private static final long EXIT_BOUND_S = 60;
  private static final EmbeddedIdentity IDENTITY = TestRsaKeys.identity(TestRsaKeys.TRUSTED);

  @TempDir Path dir;

  private static ProcessBuilder packaged(Path log) {
    ProcessBuilder builder =
        new ProcessBuilder(
                JavaCommand.of(
                    "--enable-native-access=ALL-UNNAMED",
                    "-jar",
                    APP.resolve("quarkus-run.jar").toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    // Nothing inherited: a CI machine's own KAFKA_* or QUARKUS_* variables must not configure it.
    builder.environment().clear();
    return builder;
  }

  private static int exitOf(Process process) throws InterruptedException {
    if (!process.waitFor(EXIT_BOUND_S, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the control plane did not exit within " + EXIT_BOUND_S + " s");
    }
    return process.exitValue();
  }

  /** How a start that should fail ended: its exit code and everything it printed. */
  private record Exit(int code, String output) {}

  /** Starts the packaged control plane with these settings only and waits for it to exit. */
  private Exit startWith(Map<String, String> settings) throws Exception {
    Path log = dir.resolve("start.log");
    ProcessBuilder builder = packaged(log);
    builder.environment().putAll(settings);
    int code = exitOf(builder.start());
    return new Exit(code, Files.readString(log));
  }

  /** A Kafka nothing listens on: each refusal below comes before the control plane dials it. */
  private static final Map.Entry<String, String> NO_KAFKA =
      entry("KAFKA_BOOTSTRAP_SERVERS", "localhost:1");

  private static final Map.Entry<String, String> NO_DATABASE =
      entry("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://localhost:1/db");

  /** A key to check tokens with: without one the start is refused for that alone. */
  private static final Map.Entry<String, String> TOKEN_KEY =
      entry("QUARKUS_OIDC_PUBLIC_KEY", IDENTITY.publicKey());

  @Test
  void withTlsRequiredAPlainDatabaseConfigurationExitsBeforeConnectingNamingTheSetting(
      EmbeddedPostgres postgres) throws Exception {
    // A real server that accepts plain connections: the control plane must not even try it.
    Exit exit =
        startWith(
            Map.ofEntries(
                NO_KAFKA,
                TOKEN_KEY,
                entry("QUARKUS_DATASOURCE_REACTIVE_URL", postgres.reactiveUrl()),
                entry("QUARKUS_DATASOURCE_USERNAME", EmbeddedPostgres.USER),
                entry("QUARKUS_DATASOURCE_PASSWORD", EmbeddedPostgres.PASSWORD),
                entry("FLEETWAVE_DATABASE_REQUIRE_TLS", "true")));

    assertThat(exit.code()).as(exit.output()).isEqualTo(2);
    assertThat(exit.output())
        .contains("FLEETWAVE_DATABASE_REQUIRE_TLS is true")
        .contains("QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE")
        .as("stopped before Quarkus starts: no migration, no listener")
        .doesNotContain("Migrating schema")
        .doesNotContain("Listening on");
  }

  @Test
  void withNothingConfiguredItExitsAtOnceNamingEverySetting() throws Exception {
    Exit exit = startWith(Map.of());

    assertThat(exit.code()).as(exit.output()).isEqualTo(2);
    assertThat(exit.output())
        .contains("the control plane cannot start, these settings are missing")
        .contains("KAFKA_BOOTSTRAP_SERVERS")
        .contains("QUARKUS_DATASOURCE_REACTIVE_URL")
        .contains("QUARKUS_OIDC_AUTH_SERVER_URL")
        .doesNotContain("starting an embedded")
        .doesNotContain("Listening on");
  }

  /**
   * Decided: without a provider (or a key) to check tokens with, every /api call would be refused;
   * the control plane says so before it starts instead of serving nobody.
   */
  @Test
  void withoutAnIdentityProviderItExitsAtOnceNamingTheOidcSettings() throws Exception {
    Exit exit =
        startWith(
            Map.ofEntries(NO_KAFKA, NO_DATABASE, entry("QUARKUS_OIDC_CLIENT_ID", "fleetwave")));

    assertThat(exit.code()).as(exit.output()).isEqualTo(2);
    assertThat(exit.output())
        .contains("the control plane cannot start, these settings are missing")
        .contains("QUARKUS_OIDC_AUTH_SERVER_URL", "QUARKUS_OIDC_PUBLIC_KEY")
        .doesNotContain("KAFKA_BOOTSTRAP_SERVERS (or")
        .doesNotContain("Listening on");
  }

  @Test
  void aDatabaseUrlThatIsNotPostgresIsRefusedWithoutShowingItsPassword() throws Exception {
    Exit exit =
        startWith(
            Map.ofEntries(
                NO_KAFKA,
                TOKEN_KEY,
                entry("QUARKUS_DATASOURCE_REACTIVE_URL", "mysql://app:hunter2@db/app")));

    assertThat(exit.code()).as(exit.output()).isEqualTo(2);
    assertThat(exit.output())
        .contains("QUARKUS_DATASOURCE_REACTIVE_URL must be a PostgreSQL URL")
        .doesNotContain("hunter2");
  }

  @Test
  void aSettingOutOfItsBoundsStopsTheStartNamingIt() throws Exception {
    Exit exit =
        startWith(
            Map.ofEntries(
                NO_KAFKA,
                NO_DATABASE,
                TOKEN_KEY,
                entry("FLEETWAVE_PROJECTION_ATTEMPT_TIMEOUT", "0s")));

    assertThat(exit.code()).as(exit.output()).isNotZero();
    assertThat(exit.output())
        .contains("fleetwave.projection.attempt-timeout")
        .doesNotContain("Listening on");
  }

  @Test
  void oneReactiveUrlWithCredentialsIsEnoughToMigrateAndServe(
      EmbeddedPostgres postgres, KafkaBroker kafka) throws Exception {
    FleetTopics.create(kafka);
    try (ControlPlaneProcess controlPlane =
        ControlPlaneProcess.start(
            APP,
            0,
            ControlPlaneProcess.settings(kafka, postgres, Map.of()),
            dir.resolve("control-plane.log"))) {
      assertThat(controlPlane.alive()).isTrue();
      assertThat(status(controlPlane.managementPort(), "/q/health/ready", null))
          .as("health on the management port")
          .isEqualTo(200);
      assertThat(status(controlPlane.port(), "/q/swagger-ui/", null))
          .as("no Swagger UI in production")
          .isEqualTo(404);
      assertThat(status(controlPlane.port(), "/api/v1/nodes", null)).isEqualTo(401);
      assertThat(status(controlPlane.port(), "/api/v1/nodes", controlPlane.token("viewer")))
          .isEqualTo(200);
      try (var connection =
              DriverManager.getConnection(
                  postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
          ResultSet applied =
              connection
                  .createStatement()
                  .executeQuery("SELECT count(*) FROM flyway_schema_history WHERE success")) {
        applied.next();
        assertThat(applied.getInt(1))
            .as("migrations applied through the derived JDBC URL")
            .isPositive();
      }
    }
  }

  private static int status(int port, String path, String token)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .timeout(Duration.ofSeconds(10));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient()
        .send(request.build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
