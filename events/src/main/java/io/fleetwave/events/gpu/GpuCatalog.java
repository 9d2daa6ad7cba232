package io.fleetwave.events.gpu;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fleetwave.events.json.PayloadJson;
import io.fleetwave.events.yaml.StrictYaml;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The GPU models Fleetwave knows, from the bundled {@code gpu-models.yaml}. The YAML is the source
 * (commented, edited by hand); the build checks it strictly and writes it as {@code
 * gpu-models.json} next to it ({@link #main}), which is what is loaded at run time, with the
 * payload mapper the event codec uses too ({@link PayloadJson}): the node agent then starts without
 * SnakeYAML and without a second mapper (simulator/BENCH.md: 576 classes and 140 ms of CPU at every
 * agent start).
 */
public final class GpuCatalog {
  static final String SOURCE = "gpu-models.yaml";
  static final String RESOURCE = "gpu-models.json";

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
    return Bundled.CATALOG;
  }

  // Loaded on first use, not with the class: the build step (main) runs before the JSON exists.
  private static final class Bundled {
    static final GpuCatalog CATALOG = load();
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
        throw new IllegalStateException(
            "bundled "
                + RESOURCE
                + " is missing from the classpath (the build writes it from "
                + SOURCE
                + ")");
      }
      return of(jsonReader().readValue(in.readAllBytes()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read bundled " + RESOURCE, e);
    }
  }

  // The YAML reader's rules (StrictYaml's mapper) on the payload mapper, whose serializers the
  // agent has built anyway. Duplicate keys and unknown fields were refused in the YAML already.
  private static ObjectReader jsonReader() {
    return PayloadJson.mapper()
        .readerFor(CatalogFile.class)
        .with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .without(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
        .without(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
  }

  /**
   * The catalogue of a {@code gpu-models.yaml} text, read strictly (every refusal names a line).
   */
  static GpuCatalog fromYaml(String yaml) {
    return of(StrictYaml.bind(yaml, SOURCE, CatalogFile.class));
  }

  private static GpuCatalog of(CatalogFile file) {
    return new GpuCatalog(file.models.stream().map(m -> m.resolve(file.geometries)).toList());
  }

  /**
   * The build step (events/pom.xml, process-classes): checks {@code args[0]} (gpu-models.yaml) as
   * the catalogue and writes it as JSON to {@code args[1]}.
   */
  public static void main(String[] args) throws IOException {
    String yaml = Files.readString(Path.of(args[0]), StandardCharsets.UTF_8);
    fromYaml(yaml); // refuses what the catalogue would refuse, with the line
    Path json = Path.of(args[1]);
    Files.createDirectories(json.getParent());
    Files.write(
        json, JsonMapper.builder().build().writeValueAsBytes(new YAMLMapper().readTree(yaml)));
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
