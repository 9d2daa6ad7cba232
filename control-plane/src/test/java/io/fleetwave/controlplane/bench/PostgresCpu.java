package io.fleetwave.controlplane.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * The CPU time of the PostgreSQL server a connection is served by: its postmaster's and that of
 * every process the postmaster started and still runs (backends, checkpointer, WAL writer), as the
 * JDK reads them. A process that ended in between (an autovacuum worker, a short connection) is not
 * counted, so a difference of two samples is a floor.
 */
final class PostgresCpu {
  private final ProcessHandle postmaster;

  private PostgresCpu(ProcessHandle postmaster) {
    this.postmaster = postmaster;
  }

  /** The server of {@code db}, found as the parent of the connection's own backend. */
  static PostgresCpu of(Connection db) throws SQLException {
    long backend;
    try (Statement s = db.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      backend = rs.getLong(1);
    }
    ProcessHandle postmaster =
        ProcessHandle.of(backend)
            .flatMap(ProcessHandle::parent)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "PostgreSQL backend " + backend + " is not a process of this machine"));
    return new PostgresCpu(postmaster);
  }

  Duration now() {
    return Stream.concat(Stream.of(postmaster), postmaster.descendants())
        .map(process -> process.info().totalCpuDuration().orElse(Duration.ZERO))
        .reduce(Duration.ZERO, Duration::plus);
  }
}
