package io.fleetwave.controlplane.mig.store;

import java.time.Instant;
import java.util.List;

/**
 * One stored MIG config as the API shows it.
 *
 * @param yaml the config alone, in the mig-parted format
 * @param entries its entries in file order
 * @param source where it came from (the import's {@code source}, or the start-up seed)
 */
public record StoredMigConfig(
    String name, String yaml, List<MigEntryView> entries, String source, Instant importedAt) {
  public StoredMigConfig {
    entries = List.copyOf(entries);
  }
}
