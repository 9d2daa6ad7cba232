package io.fleetwave.controlplane.mig.store;

import java.util.List;

/**
 * What one import stored.
 *
 * @param imported every config name in the file, in file order
 * @param replaced those of them that existed before and were replaced by this import
 * @param warnings what the importer could not check (e.g. GPU models outside the catalogue)
 */
public record MigConfigImport(
    List<String> imported, List<String> replaced, List<String> warnings, String source) {
  public MigConfigImport {
    imported = List.copyOf(imported);
    replaced = List.copyOf(replaced);
    warnings = List.copyOf(warnings);
  }
}
