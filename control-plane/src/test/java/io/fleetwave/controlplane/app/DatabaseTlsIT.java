package io.fleetwave.controlplane.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.RunsLast;
import io.fleetwave.controlplane.fixtures.TlsPostgres;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged control plane with deploy/'s database settings against a real PostgreSQL that
 * refuses every connection without TLS: it migrates (Flyway, over the JDBC URL derived with
 * sslmode=verify-full) and serves (the reactive pool, verify-full) only when the server's
 * certificate verifies against the CA it trusts, for the host name it connects to.
 */
@ExtendWith(KafkaExtension.class)
// Last in its fork (NoQuarkusItsSuite), after the tests with a database of their own: as far as it
// can from the first minutes, when the other two forks build their Quarkus applications.
@RunsLast
class DatabaseTlsIT {
  private static final Path APP = Path.of("target", "quarkus-app");

  @TempDir static Path certificates;
  @TempDir Path dir;
  private static TlsPostgres postgres;

  @BeforeAll
  static void startPostgres() throws Exception {
    postgres = TlsPostgres.start(certificates);
  }

  @AfterAll
  static void stopPostgres() throws IOException {
    postgres.close();
  }

  /** deploy/control-plane/deployment.yaml's settings, for this server on {@code host}. */
  private static Map<String, String> deploySettings(KafkaBroker kafka, String host, Path ca) {
    Map<String, String> env = new HashMap<>();
    env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    env.put(
        "QUARKUS_DATASOURCE_REACTIVE_URL",
        "postgresql://" + host + ":" + postgres.port() + "/" + EmbeddedPostgres.DATABASE);
    env.put("QUARKUS_DATASOURCE_USERNAME", EmbeddedPostgres.USER);
    env.put("QUARKUS_DATASOURCE_PASSWORD", EmbeddedPostgres.PASSWORD);
    env.put("QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE", "verify-full");
    env.put("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM", "true");
    env.put("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM_CERTS", ca.toString());
    env.put("QUARKUS_DATASOURCE_REACTIVE_HOSTNAME_VERIFICATION_ALGORITHM", "HTTPS");
    env.put("FLEETWAVE_DATABASE_REQUIRE_TLS", "true");
    return env;
  }

  @Test
  void withTheClustersCaItMigratesAndServesOverVerifiedTls(KafkaBroker kafka) throws Exception {
    assertThat(postgres.refusesPlainConnections())
        .as("the server under test must refuse plain connections, or this proves nothing")
        .isTrue();
    FleetTopics.create(kafka);
    Path log = dir.resolve("control-plane.log");
    try (ControlPlaneProcess controlPlane =
        ControlPlaneProcess.start(
            APP, 0, deploySettings(kafka, "localhost", postgres.caFile()), log)) {
      assertThat(controlPlane.alive()).isTrue();
      try (Connection connection = postgres.connect();
          ResultSet counts =
              connection
                  .createStatement()
                  .executeQuery(
                      "SELECT (SELECT count(*) FROM flyway_schema_history WHERE success),"
                          + " (SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a"
                          + " USING (pid) WHERE s.ssl AND a.backend_type = 'client backend'"
                          + " AND a.pid <> pg_backend_pid())")) {
        counts.next();
        assertThat(counts.getInt(1)).as("migrations applied over TLS").isPositive();
        assertThat(counts.getInt(2)).as("the reactive pool's TLS connections").isPositive();
      }
    }
  }

  @Test
  void aServerCertificateNotSignedByTheTrustedCaStopsTheStart(KafkaBroker kafka) throws Exception {
    String log = logOfRefusedStart(deploySettings(kafka, "localhost", postgres.otherCaFile()));
    // PgJDBC's refusal: Flyway's derived JDBC URL verifies the server too (sslmode=verify-full).
    assertThat(log).contains("PSQLException").containsIgnoringCase("certificat");
  }

  @Test
  void aServerCertificateForAnotherHostNameStopsTheStart(KafkaBroker kafka) throws Exception {
    // The certificate names localhost only; 127.0.0.1 is the same server under another name.
    String log = logOfRefusedStart(deploySettings(kafka, "127.0.0.1", postgres.caFile()));
    assertThat(log).contains("PSQLException").contains("127.0.0.1");
  }

  /** The log of a start with {@code settings}, which must fail: the control plane exits. */
  private String logOfRefusedStart(Map<String, String> settings) throws IOException {
    Path log = dir.resolve("control-plane.log");
    assertThatThrownBy(() -> ControlPlaneProcess.start(APP, 0, settings, log).close())
        .hasMessageContaining("control plane exited");
    return Files.readString(log);
  }
}
