package io.fleetwave.embedded;

import static org.assertj.core.api.Assertions.assertThat;

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
 * "could not bind ... Address already in use"). A class of its own: the taken port's start waits
 * out its bound, beside the other PostgreSQL tests' fork.
 */
class EmbeddedPostgresPortsIT {
  @Test
  void aPortTakenBeforeTheServerBindsItIsLeftForAnother() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(
          new InetSocketAddress(
              InetAddress.getLoopbackAddress(), LoopbackPorts.belowTheEphemeralRange()));
      Iterator<Integer> offered =
          List.of(taken.getLocalPort(), LoopbackPorts.belowTheEphemeralRange()).iterator();

      try (EmbeddedPostgres pg = EmbeddedPostgres.start(offered::next, Duration.ofSeconds(15))) {
        assertThat(pg.port()).isNotEqualTo(taken.getLocalPort());
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
  void aNewServersPortIsBelowTheEphemeralRange() {
    try (EmbeddedPostgres pg = EmbeddedPostgres.startFromTemplate()) {
      assertThat(pg.port())
          .isBetween(LoopbackPorts.LOWEST, LoopbackPorts.ephemeralRangeStart() - 1);
    }
  }
}
