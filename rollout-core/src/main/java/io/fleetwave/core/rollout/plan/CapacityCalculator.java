package io.fleetwave.core.rollout.plan;

import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Capacity per GPU model across the fleet: instances before and after the rollout, and the most
 * GPUs and instances out of service in any one batch (a node in a batch is out of service whole).
 */
final class CapacityCalculator {
  private CapacityCalculator() {}

  static List<CapacityImpact> compute(
      FleetSnapshot fleet, List<PlannedWave> waves, GpuCatalog catalog) {
    Map<String, FleetNode> nodes = new HashMap<>();
    fleet.nodes().forEach(n -> nodes.put(n.name(), n));
    Map<String, Tally> tallies = new TreeMap<>();
    Map<String, Map<Integer, GpuChange>> changes = new HashMap<>();
    waves.stream()
        .flatMap(w -> w.nodes().stream())
        .forEach(
            p -> {
              Map<Integer, GpuChange> byGpu = new HashMap<>();
              p.gpuChanges().forEach(c -> byGpu.put(c.gpuIndex(), c));
              changes.put(p.node(), byGpu);
            });
    for (FleetNode node : fleet.nodes()) {
      for (Gpu gpu : node.gpus()) {
        Tally tally = tallies.computeIfAbsent(model(gpu, catalog), m -> new Tally());
        tally.gpus++;
        count(tally.before, gpu.instances());
        GpuChange change = changes.getOrDefault(node.name(), Map.of()).get(gpu.index());
        count(tally.after, change == null ? gpu.instances() : change.to());
      }
    }
    for (PlannedWave wave : waves) {
      for (NodeBatch batch : wave.batches()) {
        Map<String, Tally> down = new TreeMap<>();
        for (NodePlan plan : batch.nodes()) {
          for (Gpu gpu : nodes.get(plan.node()).gpus()) {
            Tally t = down.computeIfAbsent(model(gpu, catalog), m -> new Tally());
            t.gpus++;
            count(t.before, gpu.instances());
          }
        }
        down.forEach(
            (model, t) -> {
              Tally tally = tallies.get(model);
              tally.peakGpus = Math.max(tally.peakGpus, t.gpus);
              t.before.forEach((profile, n) -> tally.peakInstances.merge(profile, n, Math::max));
            });
      }
    }
    List<CapacityImpact> out = new ArrayList<>();
    tallies.forEach(
        (model, t) ->
            out.add(
                new CapacityImpact(model, t.gpus, t.peakGpus, t.before, t.after, t.peakInstances)));
    return out;
  }

  static String model(Gpu gpu, GpuCatalog catalog) {
    return catalog.find(gpu.pciDeviceId()).map(GpuModel::shortName).orElse(gpu.pciDeviceId());
  }

  private static void count(Map<String, Integer> counts, List<GpuInstance> instances) {
    instances.forEach(i -> counts.merge(i.profile(), 1, Integer::sum));
  }

  private static final class Tally {
    int gpus;
    int peakGpus;
    final Map<String, Integer> before = new TreeMap<>();
    final Map<String, Integer> after = new TreeMap<>();
    final Map<String, Integer> peakInstances = new TreeMap<>();
  }
}
