package io.fleetwave.core.rollout.plan;

import java.time.DayOfWeek;
import java.util.List;

/**
 * When nodes may be taken out of service. A window whose end is before its start runs over
 * midnight.
 *
 * @param days the days the window opens; empty means every day
 * @param start opening time, {@code HH:mm}
 * @param end closing time, {@code HH:mm}
 * @param timeZone an IANA zone id such as {@code Europe/Berlin}; UTC when null
 */
public record MaintenanceWindow(List<DayOfWeek> days, String start, String end, String timeZone) {
  public MaintenanceWindow {
    days = days == null ? List.of() : List.copyOf(days);
    timeZone = timeZone == null ? "UTC" : timeZone;
  }
}
