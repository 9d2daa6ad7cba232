package io.fleetwave.events.fact;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.time.Instant;

/**
 * A mig-parted file was imported (by an administrator, or as the start-up seed): every config it
 * names replaces the stored config of that name. The subject is {@link #SUBJECT}.
 *
 * @param yaml the file as imported, checked whole before it was recorded
 * @param source where it came from, as the import named it
 */
public record MigConfigsImported(String yaml, String source, Instant importedAt)
    implements ControlFact {
  /** The subject (and record key) of every MIG config import. */
  public static final String SUBJECT = "mig-configs";

  public MigConfigsImported {
    notBlank(yaml, "yaml");
    notBlank(source, "source");
    notNull(importedAt, "importedAt");
  }
}
