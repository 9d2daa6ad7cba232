package io.fleetwave.core.projection;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * The partition plan against the retention's promise, for random times, retentions, partitions and
 * default-partition contents: history is kept at least the retention and at most a day longer,
 * today and the days ahead exist after the plan, and a plan applied changes nothing more.
 */
class HistoryPartitionPlanProperties {
  private static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

  @Property(tries = 500)
  void keepsAtLeastTheRetentionAndCreatesTheDaysAhead(
      @ForAll @LongRange(min = 0, max = 3L * 365 * 86_400) long nowSeconds,
      @ForAll @IntRange(min = 1, max = 90) int retentionDays,
      @ForAll @IntRange(min = 0, max = 23) int retentionExtraHours,
      @ForAll @IntRange(min = 1, max = 10) int aheadDays,
      @ForAll @Size(max = 30) List<@IntRange(min = -120, max = 30) Integer> existingOffsets,
      @ForAll @Size(max = 10) List<@IntRange(min = -120, max = 400) Integer> defaultOffsets) {
    Instant now = EPOCH.plusSeconds(nowSeconds);
    Duration retention = Duration.ofDays(retentionDays).plusHours(retentionExtraHours);
    Duration ahead = Duration.ofDays(aheadDays);
    LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
    Set<String> existing = new HashSet<>(Set.of("node_events_default"));
    existingOffsets.forEach(d -> existing.add(HistoryPartitionPlan.name(today.plusDays(d))));
    List<LocalDate> inDefault = defaultOffsets.stream().map(today::plusDays).toList();

    HistoryPartitionPlan plan = HistoryPartitionPlan.at(now, retention, ahead, existing, inDefault);

    Instant cutoff = now.minus(retention);
    assertThat(plan.keptFrom()).isBeforeOrEqualTo(cutoff).isAfter(cutoff.minus(Duration.ofDays(1)));
    for (String dropped : plan.drop()) {
      LocalDate day = HistoryPartitionPlan.dayOf(dropped).orElseThrow();
      assertThat(existing).contains(dropped);
      assertThat(HistoryPartitionPlan.start(day.plusDays(1)))
          .as("%s ends before the oldest history kept", dropped)
          .isBeforeOrEqualTo(plan.keptFrom());
    }
    for (String kept : existing) {
      if (!plan.drop().contains(kept)) {
        HistoryPartitionPlan.dayOf(kept)
            .ifPresent(
                day ->
                    assertThat(HistoryPartitionPlan.start(day.plusDays(1)))
                        .as("%s is kept and holds history newer than the oldest kept", kept)
                        .isAfter(plan.keptFrom()));
      }
    }
    Set<String> after = new HashSet<>(existing);
    after.removeAll(plan.drop());
    for (LocalDate created : plan.create()) {
      assertThat(after.add(HistoryPartitionPlan.name(created)))
          .as("%s created once", created)
          .isTrue();
    }
    for (LocalDate day = today; !day.isAfter(today.plusDays(aheadDays)); day = day.plusDays(1)) {
      assertThat(after).contains(HistoryPartitionPlan.name(day));
    }
    for (LocalDate day : inDefault) {
      if (!day.isBefore(LocalDate.ofInstant(plan.keptFrom(), ZoneOffset.UTC))
          && !day.isAfter(today.plusDays(aheadDays))) {
        assertThat(after)
            .as("a kept day the default partition holds")
            .contains(HistoryPartitionPlan.name(day));
      }
    }

    HistoryPartitionPlan again = HistoryPartitionPlan.at(now, retention, ahead, after, List.of());
    assertThat(again.create()).isEmpty();
    assertThat(again.drop()).isEmpty();
  }
}
