package io.fleetwave.testsupport.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The PostgreSQL extension: a serving database per class, stopped and deleted with its class. */
class PostgresExtensionIT {
  static final List<EmbeddedPostgres> seen = new ArrayList<>();

  @Test
  void oneServerPerClassThatAnswersQueriesAndStopsWithItsClass() {
    seen.clear();
    Run run = Run.of(PerClass.class, AnotherClass.class);

    assertThat(run.failures).isEmpty();
    assertThat(seen).hasSize(3);
    assertThat(seen.get(1)).isSameAs(seen.get(0));
    assertThat(seen.get(2)).isNotSameAs(seen.get(0));
    assertThat(seen).noneMatch(EmbeddedPostgres::running);
    assertThatThrownBy(() -> connect(seen.get(0)).close()).isInstanceOf(SQLException.class);
  }

  static Connection connect(EmbeddedPostgres postgres) throws SQLException {
    return DriverManager.getConnection(
        postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
  }

  static EmbeddedPostgres answering(EmbeddedPostgres postgres) throws SQLException {
    try (Connection c = connect(postgres);
        ResultSet rs = c.createStatement().executeQuery("select 41 + 1")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(1)).isEqualTo(42);
    }
    return postgres;
  }

  @ExtendWith(PostgresExtension.class)
  static class PerClass {
    EmbeddedPostgres field;

    @Test
    void one(EmbeddedPostgres postgres) throws SQLException {
      seen.add(answering(postgres));
      seen.add(field);
    }
  }

  @ExtendWith(PostgresExtension.class)
  static class AnotherClass {
    @Test
    void one(EmbeddedPostgres postgres) throws SQLException {
      seen.add(answering(postgres));
    }
  }
}
