package io.fleetwave.testsupport.services;

import io.fleetwave.embedded.EmbeddedPostgres;
import java.util.Optional;

/**
 * A real PostgreSQL server for a test class: {@code @ExtendWith(PostgresExtension.class)}, then a
 * field or parameter of type {@link EmbeddedPostgres} ({@link Shared} for one server per JVM; not
 * for a class that stops it). The database is empty: migrations are the test's (or its control
 * plane's) to run.
 */
public final class PostgresExtension extends ServiceExtension<EmbeddedPostgres> {
  public PostgresExtension() {
    super(EmbeddedPostgres.class, TestServices::startPostgres, Optional::empty);
  }
}
