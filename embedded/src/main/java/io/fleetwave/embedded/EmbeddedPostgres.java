package io.fleetwave.embedded;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * A real PostgreSQL server (zonky's packaged binaries) in a temporary directory, as a child process
 * that dies with this JVM.
 */
public final class EmbeddedPostgres implements AutoCloseable {
  public static final String DATABASE = "postgres";
  public static final String USER = "postgres";
  public static final String PASSWORD = "postgres";

  private final io.zonky.test.db.postgres.embedded.EmbeddedPostgres server;

  private EmbeddedPostgres(io.zonky.test.db.postgres.embedded.EmbeddedPostgres server) {
    this.server = server;
  }

  public static EmbeddedPostgres start() {
    try {
      return new EmbeddedPostgres(
          io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
              .setPGStartupWait(Duration.ofSeconds(30))
              // Enough connections for a reactive pool, Flyway and a benchmark side by side.
              .setServerConfig("max_connections", "200")
              .setServerConfig("fsync", "off")
              .setServerConfig("synchronous_commit", "off")
              .start());
    } catch (IOException e) {
      throw new IllegalStateException("embedded PostgreSQL failed to start: " + e.getMessage(), e);
    }
  }

  public int port() {
    return server.getPort();
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port() + "/" + DATABASE;
  }

  /** The URL form the Vert.x reactive client takes. */
  public String reactiveUrl() {
    return "postgresql://localhost:" + port() + "/" + DATABASE;
  }

  /** The Quarkus configuration that points the reactive pool and Flyway at this server. */
  public Map<String, String> quarkusDatasourceProperties() {
    return Map.of(
        "quarkus.datasource.reactive.url",
        reactiveUrl(),
        "quarkus.datasource.jdbc.url",
        jdbcUrl(),
        "quarkus.datasource.username",
        USER,
        "quarkus.datasource.password",
        PASSWORD);
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      throw new IllegalStateException("embedded PostgreSQL failed to stop cleanly", e);
    }
  }
}
