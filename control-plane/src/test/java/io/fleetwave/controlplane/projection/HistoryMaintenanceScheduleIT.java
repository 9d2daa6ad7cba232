package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.core.projection.HistoryPartitionPlan;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The control plane maintains the history's partitions by itself: at start (and every interval),
 * today's and the configured days ahead exist without anyone asking.
 */
@QuarkusTest
class HistoryMaintenanceScheduleIT {
  @Test
  void theControlPlaneKeepsTodaysAndTheNextDaysPartitionsFromItsStart() {
    // Today and two days ahead exist whether the control plane started today or (just before
    // midnight) yesterday, with fleetwave.projection.history.ahead = 3 days.
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    ProjectionRows.awaitCount(
        "the day partitions of today and two days ahead",
        Duration.ofSeconds(60),
        "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            + " WHERE i.inhparent = 'node_events'::regclass AND c.relname IN ('"
            + HistoryPartitionPlan.name(today)
            + "', '"
            + HistoryPartitionPlan.name(today.plusDays(2))
            + "')",
        2);
  }
}
