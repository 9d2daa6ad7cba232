package io.fleetwave.core.mig;

import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Imports a mig-parted file: strict parsing ({@link MigConfigParser}), then the layouts are checked
 * against the GPU catalogue wherever the file says which models they are for.
 *
 * <ul>
 *   <li>An entry with a device-filter must fit every catalogue model the filter names.
 *   <li>An entry without one applies to whatever GPU it meets, so it is refused only when it fits
 *       none of the catalogue models that have all its profiles (a layout no GPU could take).
 *   <li>Profiles or PCI ids the catalogue does not know are accepted with a warning: they are
 *       checked again when a config resolves on a node, where an unknown model is refused.
 * </ul>
 */
public final class MigConfigImporter {
  private final GpuCatalog catalog;

  public MigConfigImporter(GpuCatalog catalog) {
    this.catalog = catalog;
  }

  /** Parses and checks a file; throws {@link MigConfigException} listing every problem. */
  public MigConfigFile importFile(String yaml) {
    MigConfigFile parsed = MigConfigParser.parse(yaml);
    List<MigConfigProblem> problems = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    for (MigConfig config : parsed.configs().values()) {
      for (MigConfigEntry entry : config.entries()) {
        String field = "mig-configs." + config.name() + "[" + (entry.position() - 1) + "]";
        check(config, entry, field, problems, warnings);
      }
    }
    if (!problems.isEmpty()) {
      throw new MigConfigException(problems);
    }
    return new MigConfigFile(parsed.version(), parsed.configs(), warnings);
  }

  private void check(
      MigConfig config,
      MigConfigEntry entry,
      String field,
      List<MigConfigProblem> problems,
      List<String> warnings) {
    String where = entry.describe(config.name());
    if (!entry.deviceFilter().isEmpty()) {
      for (PciDeviceFilter filter : entry.deviceFilter()) {
        Optional<GpuModel> model = catalog.find(filter.deviceId());
        if (model.isEmpty()) {
          warnings.add(
              where + ": GPU " + filter.deviceId() + " is not in the catalogue; not checked");
          continue;
        }
        if (MigLayoutValidator.validate(model.get(), entry.migEnabled(), entry.migDevices(), where)
            instanceof MigLayoutResult.Rejected rejected) {
          rejected.errors().forEach(e -> problems.add(problem(entry, field, e)));
        }
      }
      return;
    }
    if (!entry.migEnabled() || entry.migDevices().isEmpty()) {
      return;
    }
    List<GpuModel> candidates =
        catalog.models().stream()
            .filter(
                m -> entry.migDevices().keySet().stream().allMatch(p -> m.profile(p).isPresent()))
            .toList();
    if (candidates.isEmpty()) {
      warnings.add(
          where
              + ": no GPU model in the catalogue has "
              + entry.migDevices().keySet()
              + "; checked when the config resolves on a node");
      return;
    }
    List<String> rejections = new ArrayList<>();
    for (GpuModel model : candidates) {
      switch (MigLayoutValidator.validate(model, true, entry.migDevices(), where)) {
        case MigLayoutResult.Fits fits -> {
          return;
        }
        case MigLayoutResult.Rejected rejected -> rejections.addAll(rejected.errors());
      }
    }
    rejections.forEach(e -> problems.add(problem(entry, field, e)));
  }

  private static MigConfigProblem problem(MigConfigEntry entry, String field, String message) {
    return new MigConfigProblem(entry.line(), field + ".mig-devices", message);
  }
}
