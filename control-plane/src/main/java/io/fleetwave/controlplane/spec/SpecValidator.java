package io.fleetwave.controlplane.spec;

import io.fleetwave.controlplane.projection.ObservedGpu;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.GpuSpecRules;
import io.fleetwave.events.spec.NodeSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Merges a spec request onto the node's current desired spec (or, for its first spec, its observed
 * GPUs) and checks the request's shape (GPU indices, VF keys, gate, driver version) here and every
 * listed GPU against what the node has and the GPU catalogue with {@link GpuSpecRules}, the rules
 * the node agent applies too. Pure; collects every problem, not just the first.
 */
public final class SpecValidator {
  private final GpuCatalog catalog;

  public SpecValidator(GpuCatalog catalog) {
    this.catalog = catalog;
  }

  public SpecDecision decide(
      Optional<NodeSpec> previous, List<ObservedGpu> observed, SpecRequest request) {
    List<FieldError> errors = new ArrayList<>();
    Map<Integer, ObservedGpu> observedByIndex = new HashMap<>();
    observed.forEach(gpu -> observedByIndex.put(gpu.index(), gpu));
    Map<Integer, GpuSpec> merged = new TreeMap<>();
    if (previous.isPresent()) {
      previous.get().gpus().forEach(gpu -> merged.put(gpu.index(), gpu));
    } else {
      observed.forEach(gpu -> merged.put(gpu.index(), asSpec(gpu)));
    }
    GatePolicy gate = gate(request.gate(), previous, errors);
    String driverVersion = driverVersion(request.driverVersion(), previous, errors);
    List<SpecRequest.Gpu> gpus = request.gpus() == null ? List.of() : request.gpus();
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < gpus.size(); i++) {
      String where = "gpus[" + i + "]";
      SpecRequest.Gpu wanted = gpus.get(i);
      if (wanted == null || wanted.index() == null) {
        errors.add(new FieldError(where + ".index", "every listed GPU needs its index"));
        continue;
      }
      if (!seen.add(wanted.index())) {
        errors.add(
            new FieldError(
                where + ".index", "GPU " + wanted.index() + " is listed more than once"));
        continue;
      }
      ObservedGpu gpu = observedByIndex.get(wanted.index());
      if (gpu == null) {
        errors.add(
            new FieldError(
                where + ".index",
                "the node has no GPU "
                    + wanted.index()
                    + "; its GPUs are "
                    + observed.stream().map(ObservedGpu::index).sorted().toList()));
        continue;
      }
      GpuSpec base = merged.getOrDefault(gpu.index(), asSpec(gpu));
      new GpuCheck(where, gpu, base, wanted, errors).run().ifPresent(s -> merged.put(s.index(), s));
    }
    if (!errors.isEmpty()) {
      return new SpecDecision.Invalid(errors);
    }
    return new SpecDecision.Valid(new SpecDraft(driverVersion, List.copyOf(merged.values()), gate));
  }

  private static GatePolicy gate(
      String wanted, Optional<NodeSpec> previous, List<FieldError> errors) {
    GatePolicy current = previous.map(NodeSpec::gate).orElse(GatePolicy.HOLD_UNTIL_APPLIED);
    if (wanted == null) {
      return current;
    }
    try {
      return WireNamed.parse(GatePolicy.class, wanted);
    } catch (IllegalArgumentException e) {
      errors.add(new FieldError("gate", e.getMessage()));
      return current;
    }
  }

  private static String driverVersion(
      String wanted, Optional<NodeSpec> previous, List<FieldError> errors) {
    if (wanted == null) {
      return previous.map(NodeSpec::driverVersion).orElse(null);
    }
    if (wanted.isBlank()) {
      errors.add(new FieldError("driverVersion", "must be null or a version, e.g. 580.95.05"));
    }
    return wanted;
  }

  /** What a GPU is now, as a spec: the starting point of a node's first spec. */
  static GpuSpec asSpec(ObservedGpu gpu) {
    return new GpuSpec(
        gpu.index(),
        gpu.migEnabled(),
        gpu.migEnabled() ? gpu.instances() : Map.of(),
        gpu.vfsEnabled(),
        Map.of());
  }

  /** The checks of one listed GPU; adds to {@code errors}, returns the merged spec when valid. */
  private final class GpuCheck {
    private final String where;
    private final ObservedGpu gpu;
    private final GpuSpec base;
    private final SpecRequest.Gpu wanted;
    private final List<FieldError> errors;
    private final String name;
    private final int errorsBefore;

    GpuCheck(
        String where,
        ObservedGpu gpu,
        GpuSpec base,
        SpecRequest.Gpu wanted,
        List<FieldError> errors) {
      this.where = where;
      this.gpu = gpu;
      this.base = base;
      this.wanted = wanted;
      this.errors = errors;
      this.name = "GPU " + gpu.index() + " (" + gpu.product() + ", " + gpu.pciDeviceId() + ")";
      this.errorsBefore = errors.size();
    }

    Optional<GpuSpec> run() {
      Optional<GpuModel> model = catalog.find(gpu.pciDeviceId());
      boolean migEnabled = wanted.migEnabled() != null ? wanted.migEnabled() : base.migEnabled();
      Map<String, Integer> instances =
          wanted.instances() != null
              ? wanted.instances()
              : (migEnabled && base.migEnabled() ? base.instances() : Map.of());
      int vfs = wanted.vfs() != null ? wanted.vfs() : base.vfs();
      Map<Integer, String> vgpuTypes = vgpuTypes(wanted.vgpuTypes(), base.vgpuTypes());
      GpuSpecRules.GpuFacts facts =
          new GpuSpecRules.GpuFacts(
              gpu.product(),
              gpu.pciDeviceId(),
              model.map(GpuModel::migCapable).orElse(false),
              gpu.vfsTotal());
      GpuSpecRules.check(model.orElse(null), facts, migEnabled, instances, vfs, vgpuTypes)
          .forEach(violation -> error(violation.field(), name + ": " + violation.message()));
      if (errors.size() > errorsBefore) {
        return Optional.empty();
      }
      return Optional.of(new GpuSpec(gpu.index(), migEnabled, instances, vfs, vgpuTypes));
    }

    private Map<Integer, String> vgpuTypes(Map<String, String> asked, Map<Integer, String> kept) {
      if (asked == null) {
        return kept;
      }
      Map<Integer, String> types = new TreeMap<>();
      for (var entry : asked.entrySet()) {
        try {
          int vf = Integer.parseInt(entry.getKey().strip());
          if (vf < 0) {
            throw new NumberFormatException();
          }
          if (entry.getValue() == null || entry.getValue().isBlank()) {
            error("vgpuTypes." + entry.getKey(), "VF " + vf + " of " + name + " needs a type name");
          } else {
            types.put(vf, entry.getValue());
          }
        } catch (NumberFormatException e) {
          error(
              "vgpuTypes." + entry.getKey(),
              "'" + entry.getKey() + "' is not a VF index (0, 1, ...) of " + name);
        }
      }
      return types;
    }

    private void error(String field, String message) {
      errors.add(new FieldError(where + "." + field, message));
    }
  }
}
