package io.fleetwave.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The embedded PostgreSQL server: durable or copied from the template, stopped and restarted on its
 * data, and closed only once it has ended.
 */
class EmbeddedPostgresIT {
  @Test
  void postgresServesSql() throws Exception {
    try (EmbeddedPostgres pg = EmbeddedPostgres.start();
        Connection c =
            DriverManager.getConnection(
                pg.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
        ResultSet rs = c.createStatement().executeQuery("select 'ok'::text")) {
      rs.next();
      assertThat(rs.getString(1).getBytes(StandardCharsets.UTF_8))
          .isEqualTo("ok".getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void postgresStoppedRefusesConnectionsAndRestartsOnTheSamePortWithItsData() throws Exception {
    try (EmbeddedPostgres pg = EmbeddedPostgres.start()) {
      int port = pg.port();
      try (Connection c = connect(pg)) {
        c.createStatement()
            .execute("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before')");
        pg.stop();
        assertThat(pg.running()).isFalse();
        assertThatThrownBy(() -> c.createStatement().executeQuery("SELECT 1"))
            .as("a connection open at the stop is cut")
            .isInstanceOf(SQLException.class);
      }
      assertThatThrownBy(() -> connect(pg).close())
          .as("nothing listens while stopped")
          .isInstanceOf(SQLException.class);

      pg.restart();
      assertThat(pg.running()).isTrue();
      assertThat(pg.port()).isEqualTo(port);
      try (Connection c = connect(pg);
          ResultSet rs = c.createStatement().executeQuery("SELECT v FROM kept")) {
        rs.next();
        assertThat(rs.getString(1)).as("data written before the stop").isEqualTo("before");
      }
    }
  }

  /**
   * pg_ctl gives up after five seconds and zonky only logs it; the server must still be gone when
   * close returns, or deleting its data races with its last writes. A backend held stopped
   * (SIGSTOP) keeps the postmaster's fast shutdown waiting past pg_ctl's five seconds.
   */
  @Test
  void aServerSlowerToStopThanPgCtlWaitsIsClosedOnlyOnceItHasEnded() throws Exception {
    EmbeddedPostgres pg = EmbeddedPostgres.startFromTemplate();
    Connection held = connect(pg);
    long backend;
    try (ResultSet rs = held.createStatement().executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      backend = rs.getLong(1);
    }
    ProcessHandle postmaster =
        ProcessHandle.of(backend).flatMap(ProcessHandle::parent).orElseThrow();
    signal("STOP", backend);
    try {
      CompletableFuture<Boolean> aliveWhenClosed =
          CompletableFuture.supplyAsync(
              () -> {
                pg.close();
                return postmaster.isAlive();
              });
      ProcessHandle pgCtlStop = awaitPgCtlStop();
      pgCtlStop.onExit().get(30, TimeUnit.SECONDS);
      assertThat(aliveWhenClosed)
          .as("close has not returned while the postmaster waits for the stopped backend")
          .isNotDone();
      signal("CONT", backend);
      assertThat(aliveWhenClosed.get(60, TimeUnit.SECONDS))
          .as("the postmaster is alive when close returns")
          .isFalse();
    } finally {
      signal("CONT", backend);
      held.close();
    }
  }

  private static ProcessHandle awaitPgCtlStop() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() - deadline < 0) {
      var found =
          ProcessHandle.current()
              .descendants()
              .filter(
                  p ->
                      p.info().command().orElse("").endsWith("pg_ctl")
                          && List.of(p.info().arguments().orElse(new String[0])).contains("stop"))
              .findFirst();
      if (found.isPresent()) {
        return found.get();
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no pg_ctl stop ran within 30 s of close");
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).as("kill -%s %d ended", signal, pid).isTrue();
  }

  @Test
  void serversCopiedFromTheTemplateAreFreshAndIndependentAndRestartWithTheirData()
      throws Exception {
    try (EmbeddedPostgres first = EmbeddedPostgres.startFromTemplate();
        EmbeddedPostgres second = EmbeddedPostgres.startFromTemplate()) {
      assertThat(first.port()).isNotEqualTo(second.port());
      try (Connection c = connect(first)) {
        c.createStatement().execute("CREATE TABLE mine (v text); INSERT INTO mine VALUES ('1st')");
      }
      try (Connection c = connect(second);
          ResultSet rs =
              c.createStatement()
                  .executeQuery("SELECT count(*) FROM pg_tables WHERE tablename = 'mine'")) {
        rs.next();
        assertThat(rs.getInt(1)).as("the other copy's table").isZero();
      }
      first.stop();
      first.restart();
      try (Connection c = connect(first);
          ResultSet rs = c.createStatement().executeQuery("SELECT v FROM mine")) {
        rs.next();
        assertThat(rs.getString(1)).isEqualTo("1st");
      }
    }
    try (EmbeddedPostgres third = EmbeddedPostgres.startFromTemplate();
        Connection c = connect(third);
        ResultSet rs =
            c.createStatement()
                .executeQuery("SELECT count(*) FROM pg_tables WHERE tablename = 'mine'")) {
      rs.next();
      assertThat(rs.getInt(1)).as("the template took nothing from its copies").isZero();
    }
  }

  @Test
  void aStartedServerFlushesEveryCommitAsPostgresDoesByDefaultAndKeepsItAcrossARestart()
      throws Exception {
    try (EmbeddedPostgres pg = EmbeddedPostgres.start()) {
      try (Connection db = connect(pg)) {
        assertThat(durability(db)).isEqualTo(List.of("on", "on", "on"));
      }
      pg.stop();
      pg.restart();
      try (Connection db = connect(pg)) {
        assertThat(durability(db)).isEqualTo(List.of("on", "on", "on"));
      }
    }
    try (EmbeddedPostgres copy = EmbeddedPostgres.startFromTemplate();
        Connection db = connect(copy)) {
      assertThat(durability(db).subList(0, 2))
          .as("a test JVM's copy of the template: no flush")
          .isEqualTo(List.of("off", "off"));
    }
  }

  /** fsync, synchronous_commit and full_page_writes as the server reports them. */
  private static List<String> durability(Connection db) throws SQLException {
    List<String> values = new java.util.ArrayList<>();
    try (var statement = db.createStatement()) {
      for (String setting : List.of("fsync", "synchronous_commit", "full_page_writes")) {
        try (ResultSet row = statement.executeQuery("SHOW " + setting)) {
          row.next();
          values.add(row.getString(1));
        }
      }
    }
    return values;
  }

  private static Connection connect(EmbeddedPostgres pg) throws SQLException {
    return DriverManager.getConnection(
        pg.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
  }
}
