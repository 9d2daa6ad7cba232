package io.fleetwave.events.gpu;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fleetwave.events.yaml.StrictYaml;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The GPU models Fleetwave knows, loaded once from the bundled {@code gpu-models.yaml}. */
public final class GpuCatalog {
  private static final String RESOURCE = "gpu-models.yaml";
  private static final GpuCatalog BUNDLED = load();

  private final Map<String, GpuModel> byPciId;
  private final List<GpuModel> models;

  private GpuCatalog(List<GpuModel> models) {
    this.models = List.copyOf(models);
    Map<String, GpuModel> index = new LinkedHashMap<>();
    for (GpuModel model : models) {
      for (String id : model.pciDeviceIds()) {
        index.put(normalize(id), model);
      }
    }
    this.byPciId = Map.copyOf(index);
  }

  public static GpuCatalog bundled() {
    return BUNDLED;
  }

  public List<GpuModel> models() {
    return models;
  }

  /** Looks a model up by PCI device id ({@code 0x233010DE}, any case) or by its short name. */
  public Optional<GpuModel> find(String pciIdOrShortName) {
    if (pciIdOrShortName == null) {
      return Optional.empty();
    }
    GpuModel byId = byPciId.get(normalize(pciIdOrShortName));
    if (byId != null) {
      return Optional.of(byId);
    }
    return models.stream()
        .filter(m -> m.shortName().equalsIgnoreCase(pciIdOrShortName))
        .findFirst();
  }

  private static String normalize(String pciId) {
    String lower = pciId.trim().toLowerCase(Locale.ROOT);
    return lower.startsWith("0x") ? "0x" + lower.substring(2) : "0x" + lower;
  }

  private static GpuCatalog load() {
    try (InputStream in = GpuCatalog.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("bundled " + RESOURCE + " is missing from the classpath");
      }
      CatalogFile file =
          StrictYaml.bind(
              new String(in.readAllBytes(), StandardCharsets.UTF_8), RESOURCE, CatalogFile.class);
      return new GpuCatalog(file.models.stream().map(m -> m.resolve(file.geometries)).toList());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read bundled " + RESOURCE, e);
    }
  }

  // The file's own shape; resolved into the public records above.
  private record CatalogFile(
      @JsonProperty(required = true) Map<String, GeometryEntry> geometries,
      @JsonProperty(required = true) List<ModelEntry> models) {}

  private record GeometryEntry(int computeSlices, int memorySlices, Map<String, KindEntry> kinds) {}

  private record KindEntry(int profileId, int compute, int memory, int max, List<Integer> starts) {}

  private record MigEntry(String geometry, Map<String, String> profiles) {}

  private record ModelEntry(
      List<String> pciDeviceIds,
      String product,
      String shortName,
      String architecture,
      long memoryMiB,
      boolean migModeChangeNeedsReset,
      boolean migModeSurvivesReboot,
      String minDriverVersion,
      int sriovVfs,
      MigEntry mig,
      List<VgpuType> vgpuTypes) {

    GpuModel resolve(Map<String, GeometryEntry> geometries) {
      MigGeometry geometry = mig == null ? null : resolveMig(geometries);
      return new GpuModel(
          pciDeviceIds,
          product,
          shortName,
          architecture,
          memoryMiB,
          migModeChangeNeedsReset,
          migModeSurvivesReboot,
          minDriverVersion,
          sriovVfs,
          geometry,
          vgpuTypes);
    }

    private MigGeometry resolveMig(Map<String, GeometryEntry> geometries) {
      GeometryEntry geometry = geometries.get(mig.geometry());
      if (geometry == null) {
        throw new IllegalStateException(shortName + ": unknown geometry " + mig.geometry());
      }
      Collection<Map.Entry<String, String>> names = mig.profiles().entrySet();
      List<MigProfile> profiles = new ArrayList<>();
      for (Map.Entry<String, String> name : names) {
        KindEntry kind = geometry.kinds().get(name.getValue());
        if (kind == null) {
          throw new IllegalStateException(
              shortName
                  + ": profile "
                  + name.getKey()
                  + " maps to unknown kind "
                  + name.getValue());
        }
        profiles.add(
            new MigProfile(
                name.getKey(),
                name.getValue(),
                kind.profileId(),
                kind.compute(),
                kind.memory(),
                kind.max(),
                kind.starts()));
      }
      return new MigGeometry(geometry.computeSlices(), geometry.memorySlices(), profiles);
    }
  }
}
