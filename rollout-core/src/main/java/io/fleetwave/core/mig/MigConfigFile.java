package io.fleetwave.core.mig;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A parsed mig-parted file.
 *
 * @param version the format version ({@code v1})
 * @param configs configs by name, in file order
 * @param warnings what could not be checked (e.g. profiles of GPU models not in the catalogue)
 */
public record MigConfigFile(String version, Map<String, MigConfig> configs, List<String> warnings) {
  public MigConfigFile {
    configs = Collections.unmodifiableMap(new LinkedHashMap<>(configs));
    warnings = List.copyOf(warnings);
  }

  public Optional<MigConfig> config(String name) {
    return Optional.ofNullable(configs.get(name));
  }
}
