package io.fleetwave.core.projection;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.List;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Which day partitions of the node history should exist at a given time, and which must go. Pure:
 * the maintenance (the control plane's {@code HistoryPartitionMaintenance}) reads what exists, asks
 * this, and applies.
 *
 * <p>A day partition holds the events of one UTC day. History is kept from the start of the UTC day
 * of {@code now - retention} ({@link #keptFrom}): a day partition is dropped once all of it lies
 * before that, so history is kept at least {@code retention} and at most a day longer. Partitions
 * exist from today to {@code ahead} after it, and for any earlier kept day the default partition
 * holds events of (an agent whose clock was off, a day the control plane was not running).
 */
public record HistoryPartitionPlan(Instant keptFrom, List<LocalDate> create, List<String> drop) {
  public static final String PREFIX = "node_events_p";
  private static final DateTimeFormatter SUFFIX = DateTimeFormatter.ofPattern("yyyyMMdd");

  public HistoryPartitionPlan {
    create = List.copyOf(create);
    drop = List.copyOf(drop);
  }

  /**
   * @param existing the names of the node history's partitions (the default one and any other name
   *     not of a day partition are left alone)
   * @param daysInDefault the UTC days of the events the default partition holds
   */
  public static HistoryPartitionPlan at(
      Instant now,
      Duration retention,
      Duration ahead,
      Collection<String> existing,
      Collection<LocalDate> daysInDefault) {
    LocalDate firstKept = day(now.minus(retention));
    LocalDate today = day(now);
    LocalDate lastAhead = day(now.plus(ahead));
    NavigableSet<LocalDate> present = new TreeSet<>();
    List<String> drop =
        existing.stream()
            .sorted()
            .filter(
                name -> {
                  Optional<LocalDate> day = dayOf(name);
                  day.ifPresent(present::add);
                  return day.isPresent() && day.get().isBefore(firstKept);
                })
            .toList();
    NavigableSet<LocalDate> wanted =
        new TreeSet<>(today.datesUntil(lastAhead.plusDays(1)).toList());
    daysInDefault.stream()
        .filter(d -> !d.isBefore(firstKept) && !d.isAfter(lastAhead))
        .forEach(wanted::add);
    wanted.removeAll(present);
    return new HistoryPartitionPlan(start(firstKept), List.copyOf(wanted), drop);
  }

  /** The start of the oldest history kept at {@code now}: the UTC day of now - retention. */
  public static Instant keptFrom(Instant now, Duration retention) {
    return start(day(now.minus(retention)));
  }

  public static String name(LocalDate day) {
    return PREFIX + SUFFIX.format(day);
  }

  /** The day of a day partition's name; empty for any other name (the default partition). */
  public static Optional<LocalDate> dayOf(String name) {
    if (!name.startsWith(PREFIX) || name.length() != PREFIX.length() + 8) {
      return Optional.empty();
    }
    try {
      return Optional.of(LocalDate.parse(name.substring(PREFIX.length()), SUFFIX));
    } catch (java.time.format.DateTimeParseException e) {
      return Optional.empty();
    }
  }

  public static Instant start(LocalDate day) {
    return day.atStartOfDay(ZoneOffset.UTC).toInstant();
  }

  private static LocalDate day(Instant instant) {
    return LocalDate.ofInstant(instant, ZoneOffset.UTC);
  }
}
