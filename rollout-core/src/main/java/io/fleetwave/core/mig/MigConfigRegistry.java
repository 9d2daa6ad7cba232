package io.fleetwave.core.mig;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The MIG configs the planner can name, by config name. Immutable; later files win on a clash. */
public record MigConfigRegistry(Map<String, MigConfig> configs) {
  public MigConfigRegistry {
    configs = Collections.unmodifiableMap(new LinkedHashMap<>(configs));
  }

  public static MigConfigRegistry of(MigConfigFile... files) {
    Map<String, MigConfig> all = new LinkedHashMap<>();
    for (MigConfigFile file : files) {
      all.putAll(file.configs());
    }
    return new MigConfigRegistry(all);
  }

  public Optional<MigConfig> find(String name) {
    return Optional.ofNullable(configs.get(name));
  }
}
