package io.fleetwave.core.mig;

import java.util.List;

/** One named layout of a mig-parted file, e.g. {@code all-balanced}; the first match wins. */
public record MigConfig(String name, int line, List<MigConfigEntry> entries) {
  public MigConfig {
    entries = List.copyOf(entries);
  }
}
