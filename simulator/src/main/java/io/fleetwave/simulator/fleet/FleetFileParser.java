package io.fleetwave.simulator.fleet;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.HostOs;
import io.fleetwave.events.yaml.StrictYaml;
import io.fleetwave.events.yaml.YamlException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** YAML to {@link FleetFile}: {@link StrictYaml} for the shape, then checks per node group. */
final class FleetFileParser {
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DRIVER = Pattern.compile("\\d+\\.\\d+(\\.\\d+)?");

  private FleetFileParser() {}

  // The file's own shape, before checks. Mutable classes rather than records: Jackson reports an
  // unknown field of a record only after the whole mapping, at the wrong line.
  static final class RawFleet {
    @JsonProperty("nodes")
    List<RawGroup> nodes;
  }

  static final class RawGroup {
    @JsonProperty("name-prefix")
    String namePrefix;

    @JsonProperty("count")
    Integer count;

    @JsonProperty("host")
    String host;

    @JsonProperty("os-version")
    String osVersion;

    @JsonProperty("zone")
    String zone;

    @JsonProperty("labels")
    Map<String, String> labels;

    @JsonProperty("driver-version")
    String driverVersion;

    @JsonProperty("gpus")
    List<RawGpus> gpus;
  }

  static final class RawGpus {
    @JsonProperty("model")
    String model;

    @JsonProperty("count")
    Integer count;
  }

  static FleetFile parse(String yaml, String source) {
    RawFleet raw;
    try {
      raw = StrictYaml.bind(yaml, source, RawFleet.class);
    } catch (YamlException e) {
      throw new InvalidFleetFileException(e.getMessage(), e);
    }
    if (raw == null || raw.nodes == null || raw.nodes.isEmpty()) {
      throw new InvalidFleetFileException(source + ": 'nodes' must list at least one node group");
    }
    List<NodeGroup> groups = new ArrayList<>();
    Map<String, String> nodeOwners = new HashMap<>();
    for (int i = 0; i < raw.nodes.size(); i++) {
      NodeGroup group = new GroupCheck(source, i, raw.nodes.get(i)).toGroup();
      for (int n = 0; n < group.count(); n++) {
        String previous = nodeOwners.putIfAbsent(group.nodeName(n), group.namePrefix());
        if (previous != null) {
          throw new InvalidFleetFileException(
              source
                  + ": node group '"
                  + group.namePrefix()
                  + "' (nodes["
                  + i
                  + "]): node name "
                  + group.nodeName(n)
                  + " is also produced by group '"
                  + previous
                  + "'");
        }
      }
      groups.add(group);
    }
    return new FleetFile(groups);
  }

  /** Checks one node group; every message names the group. */
  private record GroupCheck(String source, int index, RawGroup raw) {
    NodeGroup toGroup() {
      String prefix = require(raw.namePrefix, "name-prefix");
      if (!NAME.matcher(prefix).matches()) {
        throw bad("name-prefix '" + prefix + "' must be lower-case letters, digits and '-'");
      }
      int count = require(raw.count, "count");
      if (count < 1) {
        throw bad("count must be at least 1, got " + count);
      }
      HostOs os = hostOs();
      String driver = require(raw.driverVersion, "driver-version");
      if (!DRIVER.matcher(driver).matches()) {
        throw bad("driver-version '" + driver + "' is not a driver version like 580.95.05");
      }
      List<GpuGroup> gpus = gpus(os.hostKind(), driver);
      String zone = raw.zone == null ? "default" : raw.zone;
      if (zone.isBlank()) {
        throw bad("zone must not be blank");
      }
      Map<String, String> labels = raw.labels == null ? Map.of() : raw.labels;
      labels.forEach(
          (k, v) -> {
            if (k == null || k.isBlank() || v == null) {
              throw bad("label '" + k + "' needs a non-blank key and a value");
            }
          });
      return new NodeGroup(prefix, count, os, zone, labels, driver, gpus);
    }

    private HostOs hostOs() {
      String host = require(raw.host, "host");
      HostKind kind;
      try {
        kind = WireNamed.parse(HostKind.class, host);
      } catch (IllegalArgumentException e) {
        throw bad("host: " + e.getMessage());
      }
      if (raw.osVersion == null) {
        return HostOsCatalog.of(kind);
      }
      return HostOsCatalog.of(kind, raw.osVersion)
          .orElseThrow(
              () ->
                  bad(
                      "os-version '"
                          + raw.osVersion
                          + "' is not simulated for host "
                          + kind
                          + " (known: "
                          + HostOsCatalog.versions(kind)
                          + ")"));
    }

    private List<GpuGroup> gpus(HostKind kind, String driver) {
      if (raw.gpus == null || raw.gpus.isEmpty()) {
        throw bad("gpus must list at least one GPU model");
      }
      List<GpuGroup> gpus = new ArrayList<>();
      for (int g = 0; g < raw.gpus.size(); g++) {
        RawGpus entry = raw.gpus.get(g);
        String field = "gpus[" + g + "]";
        String name = require(entry.model, field + ".model");
        GpuModel model =
            GpuCatalog.bundled()
                .find(name)
                .orElseThrow(
                    () ->
                        bad(field + ": unknown GPU model '" + name + "' (known: " + known() + ")"));
        int count = require(entry.count, field + ".count");
        if (count < 1) {
          throw bad(field + ".count must be at least 1, got " + count);
        }
        if (kind == HostKind.VGPU_HOST && !model.sriovCapable()) {
          throw bad(
              field + ": " + model.shortName() + " is not SR-IOV capable, a vgpu-host needs it");
        }
        if (model.minDriverVersion() != null && compare(driver, model.minDriverVersion()) < 0) {
          throw bad(
              field
                  + ": "
                  + model.shortName()
                  + " needs driver "
                  + model.minDriverVersion()
                  + " or newer, group has "
                  + driver);
        }
        gpus.add(new GpuGroup(model, count));
      }
      return gpus;
    }

    private static String known() {
      return GpuCatalog.bundled().models().stream()
          .map(m -> m.pciDeviceId() + " " + m.shortName())
          .collect(Collectors.joining(", "));
    }

    private static int compare(String a, String b) {
      String[] x = a.split("\\.", -1);
      String[] y = b.split("\\.", -1);
      for (int i = 0; i < Math.max(x.length, y.length); i++) {
        int left = i < x.length ? Integer.parseInt(x[i]) : 0;
        int right = i < y.length ? Integer.parseInt(y[i]) : 0;
        if (left != right) {
          return Integer.compare(left, right);
        }
      }
      return 0;
    }

    private <T> T require(T value, String field) {
      if (value == null || (value instanceof String s && s.isBlank())) {
        throw bad("missing required field '" + field + "'");
      }
      return value;
    }

    private InvalidFleetFileException bad(String problem) {
      String name = raw.namePrefix == null ? "" : "'" + raw.namePrefix + "' ";
      return new InvalidFleetFileException(
          source + ": node group " + name + "(nodes[" + index + "]): " + problem);
    }
  }
}
