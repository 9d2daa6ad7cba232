package io.fleetwave.core.projection;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryPartitionPlanTest {
  private static final Instant NOW = Instant.parse("2026-11-30T19:45:00Z");
  private static final Duration DAYS_30 = Duration.ofDays(30);
  private static final Duration DAYS_2 = Duration.ofDays(2);

  @Test
  void createsTodayAndTheDaysAheadThatAreMissing() {
    HistoryPartitionPlan plan =
        HistoryPartitionPlan.at(
            NOW,
            DAYS_30,
            DAYS_2,
            List.of("node_events_default", "node_events_p20261130"),
            List.of());

    assertThat(plan.create())
        .containsExactly(LocalDate.parse("2026-12-01"), LocalDate.parse("2026-12-02"));
    assertThat(plan.drop()).isEmpty();
  }

  @Test
  void dropsOnlyDayPartitionsWhollyBeforeTheStartOfTheRetainedDay() {
    // now - 30 days = 2026-10-31T19:45: that day is kept whole, the day before goes.
    HistoryPartitionPlan plan =
        HistoryPartitionPlan.at(
            NOW,
            DAYS_30,
            DAYS_2,
            List.of(
                "node_events_p20261029",
                "node_events_p20261030",
                "node_events_p20261031",
                "node_events_default",
                "node_events_archive"),
            List.of());

    assertThat(plan.drop()).containsExactly("node_events_p20261029", "node_events_p20261030");
    assertThat(plan.keptFrom()).isEqualTo(Instant.parse("2026-10-31T00:00:00Z"));
  }

  @Test
  void givesAPartitionToEveryRetainedDayTheDefaultPartitionHoldsEventsOf() {
    HistoryPartitionPlan plan =
        HistoryPartitionPlan.at(
            NOW,
            DAYS_30,
            DAYS_2,
            List.of("node_events_p20261130", "node_events_p20261201", "node_events_p20261202"),
            List.of(
                LocalDate.parse("2026-10-01"), // past the retention: deleted, not given a partition
                LocalDate.parse("2026-11-07"),
                LocalDate.parse("2027-06-01"))); // a clock far ahead: stays in the default

    assertThat(plan.create()).containsExactly(LocalDate.parse("2026-11-07"));
  }

  @Test
  void readsTheDayOfDayPartitionsOnly() {
    assertThat(HistoryPartitionPlan.dayOf("node_events_p20261130"))
        .contains(LocalDate.parse("2026-11-30"));
    assertThat(HistoryPartitionPlan.dayOf("node_events_default")).isEmpty();
    assertThat(HistoryPartitionPlan.dayOf("node_events_p2026113")).isEmpty();
    assertThat(HistoryPartitionPlan.dayOf("node_events_p20261340")).isEmpty();
    assertThat(HistoryPartitionPlan.name(LocalDate.parse("2026-01-02")))
        .isEqualTo("node_events_p20260102");
  }
}
