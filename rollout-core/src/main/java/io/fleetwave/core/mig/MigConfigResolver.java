package io.fleetwave.core.mig;

import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Resolves a named config for a node GPU by GPU, as mig-parted does: the first entry whose
 * device-filter and devices match a GPU wins; a GPU no entry matches keeps its state.
 */
public final class MigConfigResolver {
  private final GpuCatalog catalog;

  public MigConfigResolver(GpuCatalog catalog) {
    this.catalog = catalog;
  }

  public MigResolution resolve(MigConfig config, List<NodeGpu> gpus) {
    List<GpuResolution> out = new ArrayList<>();
    for (NodeGpu gpu : gpus.stream().sorted(Comparator.comparingInt(NodeGpu::index)).toList()) {
      out.add(resolve(config, gpu));
    }
    return new MigResolution(config.name(), out);
  }

  private GpuResolution resolve(MigConfig config, NodeGpu gpu) {
    Optional<MigConfigEntry> match =
        config.entries().stream()
            .filter(e -> e.matches(gpu.index(), gpu.pciDeviceId(), gpu.pciSubsystemId()))
            .findFirst();
    if (match.isEmpty()) {
      return new GpuResolution.Unmatched(
          gpu.index(),
          gpu.pciDeviceId(),
          "no entry of config '"
              + config.name()
              + "' matches GPU "
              + gpu.index()
              + " ("
              + gpu.pciDeviceId()
              + "): it keeps its current MIG state");
    }
    MigConfigEntry entry = match.get();
    String where = entry.describe(config.name());
    Optional<GpuModel> model = catalog.find(gpu.pciDeviceId());
    if (model.isEmpty()) {
      if (!entry.migEnabled()) {
        return new GpuResolution.Configured(
            gpu.index(), gpu.pciDeviceId(), null, entry, false, List.of());
      }
      return new GpuResolution.Invalid(
          gpu.index(),
          gpu.pciDeviceId(),
          entry,
          List.of(
              "GPU model "
                  + gpu.pciDeviceId()
                  + " is not in the GPU catalogue, so "
                  + MigLayoutValidator.describe(entry.migDevices())
                  + " cannot be checked against it ("
                  + where
                  + ")"));
    }
    return switch (MigLayoutValidator.validate(
        model.get(), entry.migEnabled(), entry.migDevices(), where)) {
      case MigLayoutResult.Fits fits ->
          new GpuResolution.Configured(
              gpu.index(),
              gpu.pciDeviceId(),
              model.get(),
              entry,
              entry.migEnabled() && model.get().migCapable(),
              fits.placements());
      case MigLayoutResult.Rejected rejected ->
          new GpuResolution.Invalid(gpu.index(), gpu.pciDeviceId(), entry, rejected.errors());
    };
  }
}
