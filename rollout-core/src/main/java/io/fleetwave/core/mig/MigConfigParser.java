package io.fleetwave.core.mig;

import io.fleetwave.events.yaml.StrictYaml;
import io.fleetwave.events.yaml.YamlException;
import io.fleetwave.events.yaml.YamlNode;
import io.fleetwave.events.yaml.YamlNode.Mapping;
import io.fleetwave.events.yaml.YamlNode.Scalar;
import io.fleetwave.events.yaml.YamlNode.Sequence;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parses the mig-parted file format strictly: unknown fields, wrong types and malformed values are
 * all reported, each with its line and field path, and nothing is imported if any is found. Only
 * the format is checked here; whether a layout fits a GPU model is {@link MigLayoutValidator}'s
 * job.
 */
public final class MigConfigParser {
  private static final List<String> ROOT_FIELDS = List.of("version", "mig-configs");
  private static final List<String> ENTRY_FIELDS =
      List.of("device-filter", "devices", "mig-enabled", "mig-devices");
  // mig-parted profile names: [<C>c.]<G>g.<M>gb with optional attributes (+me, -me, +gfx, +me.all)
  private static final Pattern PROFILE =
      Pattern.compile("(\\d+c\\.)?\\d+g\\.\\d+gb([+-][a-z]+(\\.[a-z]+)?)*");

  private final List<MigConfigProblem> problems = new ArrayList<>();

  private MigConfigParser() {}

  /** Parses a whole file; throws {@link MigConfigException} listing every problem found. */
  public static MigConfigFile parse(String yaml) {
    MigConfigParser parser = new MigConfigParser();
    YamlNode root;
    try {
      root = StrictYaml.tree(yaml);
    } catch (YamlException e) {
      throw new MigConfigException(List.of(new MigConfigProblem(e.line(), e.key(), e.reason())));
    }
    MigConfigFile file = parser.file(root);
    if (!parser.problems.isEmpty()) {
      throw new MigConfigException(parser.problems);
    }
    return file;
  }

  private MigConfigFile file(YamlNode root) {
    if (!(root instanceof Mapping map)) {
      problem(root.line(), "", "the file must be a mapping with version and mig-configs");
      return null;
    }
    rejectUnknown(map, "", ROOT_FIELDS);
    String version = null;
    var versionEntry = map.entry("version");
    if (versionEntry.isEmpty()) {
      problem(map.line(), "version", "missing required field 'version' (expected v1)");
    } else if (!(versionEntry.get().value() instanceof Scalar s && s.text().equals("v1"))) {
      problem(
          versionEntry.get().line(),
          "version",
          "unsupported version " + versionEntry.get().value().describe() + ", expected v1");
    } else {
      version = "v1";
    }
    Map<String, MigConfig> configs = new LinkedHashMap<>();
    var configsEntry = map.entry("mig-configs");
    if (configsEntry.isEmpty()) {
      problem(map.line(), "mig-configs", "missing required field 'mig-configs'");
    } else if (!(configsEntry.get().value() instanceof Mapping named)) {
      wrongShape(configsEntry.get(), "mig-configs", "must map config names to lists of entries");
    } else {
      for (YamlNode.Entry config : named.entries()) {
        MigConfig parsed = config(config);
        if (parsed != null) {
          configs.put(parsed.name(), parsed);
        }
      }
    }
    return new MigConfigFile(version, configs, List.of());
  }

  private MigConfig config(YamlNode.Entry config) {
    String field = "mig-configs." + config.key();
    Sequence entries = nonEmptyList(config, field, "a config must be a non-empty list of entries");
    if (entries == null) {
      return null;
    }
    List<MigConfigEntry> parsed = new ArrayList<>();
    for (int i = 0; i < entries.items().size(); i++) {
      MigConfigEntry entry = entry(entries.items().get(i), field + "[" + i + "]", i + 1);
      if (entry != null) {
        parsed.add(entry);
      }
    }
    return new MigConfig(config.key(), config.line(), parsed);
  }

  private MigConfigEntry entry(YamlNode node, String field, int position) {
    if (!(node instanceof Mapping map)) {
      problem(node.line(), field, "an entry must be a mapping, found " + node.describe());
      return null;
    }
    int before = problems.size();
    rejectUnknown(map, field + ".", ENTRY_FIELDS);
    List<PciDeviceFilter> filter =
        map.entry("device-filter").map(e -> deviceFilter(e, field)).orElse(List.of());
    DeviceSelection devices =
        map.entry("devices")
            .map(e -> devices(e, field))
            .orElseGet(
                () -> {
                  problem(map.line(), field + ".devices", "missing required field 'devices'");
                  return null;
                });
    Boolean migEnabled =
        map.entry("mig-enabled")
            .map(e -> migEnabled(e, field))
            .orElseGet(
                () -> {
                  problem(
                      map.line(), field + ".mig-enabled", "missing required field 'mig-enabled'");
                  return null;
                });
    var devicesEntry = map.entry("mig-devices");
    Map<String, Integer> migDevices = devicesEntry.map(e -> migDevices(e, field)).orElse(Map.of());
    if (Boolean.TRUE.equals(migEnabled) && devicesEntry.isEmpty()) {
      problem(
          map.line(),
          field + ".mig-devices",
          "mig-enabled: true needs mig-devices (write mig-devices: {} for MIG mode without"
              + " instances)");
    }
    if (Boolean.FALSE.equals(migEnabled) && !migDevices.isEmpty()) {
      problem(
          devicesEntry.get().line(),
          field + ".mig-devices",
          "mig-enabled: false allows no mig-devices, found " + migDevices.keySet());
    }
    if (problems.size() > before) {
      return null;
    }
    return new MigConfigEntry(position, map.line(), filter, devices, migEnabled, migDevices);
  }

  private List<PciDeviceFilter> deviceFilter(YamlNode.Entry entry, String field) {
    String path = field + ".device-filter";
    List<YamlNode> values =
        switch (entry.value()) {
          case Scalar s -> List.of(s);
          case Sequence seq when !seq.items().isEmpty() -> seq.items();
          default -> {
            wrongShape(entry, path, "must be a PCI device id or a non-empty list of them");
            yield List.of();
          }
        };
    List<PciDeviceFilter> filters = new ArrayList<>();
    for (YamlNode value : values) {
      if (!(value instanceof Scalar s) || s.kind() != Scalar.Kind.STRING) {
        problem(value.line(), path, "must be a PCI device id string, found " + value.describe());
        continue;
      }
      try {
        filters.add(PciDeviceFilter.parse(s.text()));
      } catch (IllegalArgumentException e) {
        problem(value.line(), path, e.getMessage());
      }
    }
    return filters;
  }

  private DeviceSelection devices(YamlNode.Entry entry, String field) {
    String path = field + ".devices";
    if (entry.value() instanceof Scalar s && s.kind() == Scalar.Kind.STRING) {
      if (s.text().equals("all")) {
        return new DeviceSelection.All();
      }
      problem(entry.line(), path, "must be 'all' or a list of GPU indices, found " + s.describe());
      return null;
    }
    Sequence seq = nonEmptyList(entry, path, "must be 'all' or a non-empty list of GPU indices");
    if (seq == null) {
      return null;
    }
    List<Integer> indices = new ArrayList<>();
    Set<Integer> seen = new HashSet<>();
    for (YamlNode item : seq.items()) {
      Integer index = nonNegativeInt(item);
      if (index == null) {
        problem(item.line(), path, "a GPU index must be an integer >= 0, found " + item.describe());
      } else if (!seen.add(index)) {
        problem(item.line(), path, "GPU index " + index + " is listed twice");
      } else {
        indices.add(index);
      }
    }
    return DeviceSelection.Indices.of(indices);
  }

  private Boolean migEnabled(YamlNode.Entry entry, String field) {
    if (entry.value() instanceof Scalar s && s.kind() == Scalar.Kind.BOOLEAN) {
      return Boolean.parseBoolean(s.text());
    }
    problem(
        entry.line(),
        field + ".mig-enabled",
        "must be true or false, found " + entry.value().describe());
    return null;
  }

  private Map<String, Integer> migDevices(YamlNode.Entry entry, String field) {
    String path = field + ".mig-devices";
    if (!(entry.value() instanceof Mapping map)) {
      wrongShape(entry, path, "must map profile names to counts, e.g. {\"1g.10gb\": 7}");
      return Map.of();
    }
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (YamlNode.Entry profile : map.entries()) {
      if (!PROFILE.matcher(profile.key()).matches()) {
        problem(
            profile.line(),
            path + "." + profile.key(),
            "'"
                + profile.key()
                + "' is not a MIG profile name (e.g. 1g.10gb, 3g.40gb, 1g.10gb+me)");
        continue;
      }
      Integer count = nonNegativeInt(profile.value());
      if (count == null) {
        problem(
            profile.line(),
            path + "." + profile.key(),
            "count must be an integer >= 0, found " + profile.value().describe());
        continue;
      }
      counts.put(profile.key(), count);
    }
    return counts;
  }

  /** The entry's value as a non-empty list, or null with the problem that it must be one. */
  private Sequence nonEmptyList(YamlNode.Entry entry, String field, String mustBe) {
    if (entry.value() instanceof Sequence seq && !seq.items().isEmpty()) {
      return seq;
    }
    wrongShape(entry, field, mustBe);
    return null;
  }

  /** The entry's value is not of the shape the field takes: says which it must be, and found. */
  private void wrongShape(YamlNode.Entry entry, String field, String mustBe) {
    problem(entry.line(), field, mustBe + ", found " + entry.value().describe());
  }

  private static Integer nonNegativeInt(YamlNode node) {
    if (node instanceof Scalar s && s.kind() == Scalar.Kind.INTEGER) {
      try {
        int value = Integer.parseInt(s.text());
        return value >= 0 ? value : null;
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  private void rejectUnknown(Mapping map, String prefix, List<String> allowed) {
    for (YamlNode.Entry entry : map.entries()) {
      if (!allowed.contains(entry.key())) {
        problem(
            entry.line(),
            prefix + entry.key(),
            "unknown field '" + entry.key() + "' (allowed: " + String.join(", ", allowed) + ")");
      }
    }
  }

  private void problem(int line, String field, String message) {
    problems.add(new MigConfigProblem(line, field, message));
  }
}
