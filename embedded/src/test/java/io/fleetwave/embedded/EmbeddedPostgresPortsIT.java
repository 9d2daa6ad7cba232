package io.fleetwave.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The embedded PostgreSQL's ports: chosen below the kernel's ephemeral range, where the suite's
 * port-0 binds and outgoing connections do not take them, and a port taken anyway between its
 * choice and the server's bind is left for another instead of failing the start (a suite failed on
 * "could not bind ... Address already in use"), and left as soon as the postmaster gives up on it,
 * not at the start's bound.
 */
class EmbeddedPostgresPortsIT {
  private static final Duration BOUND = Duration.ofSeconds(90);

  @Test
  void aPortTakenBeforeTheServerBindsItIsLeftForAnother() throws Exception {
    try (ServerSocket taken = aTakenPort()) {
      Iterator<Integer> offered =
          List.of(taken.getLocalPort(), LoopbackPorts.belowTheEphemeralRange()).iterator();

      long started = System.nanoTime();
      try (EmbeddedPostgres pg = EmbeddedPostgres.startFromTemplate(offered::next, BOUND)) {
        assertThat(pg.port()).isNotEqualTo(taken.getLocalPort());
        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .as("two starts, the first left when its postmaster ended, not at its bound")
            .isLessThan(BOUND.dividedBy(2));
        try (Connection db =
                DriverManager.getConnection(
                    pg.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
            ResultSet rs = db.createStatement().executeQuery("SELECT 1")) {
          assertThat(rs.next()).isTrue();
        }
      }
    }
  }

  @Test
  void aStartThatFailsOnEveryAttemptNamesThePortAndTheReason() throws Exception {
    try (ServerSocket taken = aTakenPort()) {
      long started = System.nanoTime();
      assertThatThrownBy(() -> EmbeddedPostgres.startFromTemplate(taken::getLocalPort, BOUND))
          .hasMessageContaining(
              "postmaster ended during its start on port " + taken.getLocalPort());
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("three attempts, none waiting out its bound")
          .isLessThan(BOUND.dividedBy(2));
    }
  }

  /** A port of the range the servers' ports are chosen from, held by this test. */
  private static ServerSocket aTakenPort() throws IOException {
    ServerSocket taken = new ServerSocket();
    taken.bind(
        new InetSocketAddress(
            InetAddress.getLoopbackAddress(), LoopbackPorts.belowTheEphemeralRange()));
    return taken;
  }

  @Test
  void aNewServersPortIsBelowTheEphemeralRange() {
    try (EmbeddedPostgres pg = EmbeddedPostgres.startFromTemplate()) {
      assertThat(pg.port())
          .isBetween(LoopbackPorts.LOWEST, LoopbackPorts.ephemeralRangeStart() - 1);
    }
  }
}
