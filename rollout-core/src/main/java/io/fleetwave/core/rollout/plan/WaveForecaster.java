package io.fleetwave.core.rollout.plan;

import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.node.Gpu;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Per wave, the GPUs its batches take offline at once (overall, per zone, per GPU model, per value
 * of the labels shown) and its expected duration from measured apply times ({@link WaveForecast}).
 * A batch stands for what is offline at once: the engine keeps within the same limits.
 */
final class WaveForecaster {
  /** Shown per value even when no budget names it: the question asked before a rollout. */
  static final String TEAM_LABEL = "team";

  private WaveForecaster() {}

  static List<WaveForecast> forecast(
      List<PlannedWave> waves,
      FleetSnapshot fleet,
      Map<String, String> kinds,
      ApplyTimes times,
      GpuCatalog catalog,
      RolloutStrategy strategy) {
    Map<String, FleetNode> nodes = new HashMap<>();
    fleet.nodes().forEach(n -> nodes.put(n.name(), n));
    Set<String> labels = new TreeSet<>(strategy.maxGpusOfflinePer().keySet());
    labels.add(TEAM_LABEL);
    List<WaveForecast> out = new ArrayList<>();
    for (PlannedWave wave : waves) {
      int peak = 0;
      Map<String, Integer> byZone = new TreeMap<>();
      Map<String, Integer> byModel = new TreeMap<>();
      Map<String, Map<String, Integer>> byLabel = new TreeMap<>();
      Duration expected = Duration.ofSeconds(strategy.soakSeconds());
      SortedSet<String> unmeasured = new TreeSet<>();
      for (NodeBatch batch : wave.batches()) {
        int gpus = 0;
        Map<String, Integer> zones = new HashMap<>();
        Map<String, Integer> models = new HashMap<>();
        Map<String, Map<String, Integer>> values = new HashMap<>();
        Duration slowest = Duration.ZERO;
        for (NodePlan plan : batch.nodes()) {
          FleetNode node = nodes.get(plan.node());
          gpus += node.gpus().size();
          zones.merge(plan.zone(), node.gpus().size(), Integer::sum);
          for (Gpu gpu : node.gpus()) {
            models.merge(CapacityCalculator.model(gpu, catalog), 1, Integer::sum);
          }
          for (String label : labels) {
            String value = node.labels().get(label);
            if (value != null) {
              values
                  .computeIfAbsent(label, l -> new HashMap<>())
                  .merge(value, node.gpus().size(), Integer::sum);
            }
          }
          String kind = kinds.get(plan.node());
          Duration time = times.measured(kind).orElse(ApplyTimes.DEFAULT);
          if (times.measured(kind).isEmpty()) {
            unmeasured.add(kind);
          }
          slowest = time.compareTo(slowest) > 0 ? time : slowest;
        }
        peak = Math.max(peak, gpus);
        zones.forEach((zone, n) -> byZone.merge(zone, n, Math::max));
        models.forEach((model, n) -> byModel.merge(model, n, Math::max));
        values.forEach(
            (label, counts) ->
                counts.forEach(
                    (value, n) ->
                        byLabel
                            .computeIfAbsent(label, l -> new TreeMap<>())
                            .merge(value, n, Math::max)));
        expected = expected.plus(slowest);
      }
      Map<String, Map<String, Integer>> shownByLabel = new TreeMap<>();
      byLabel.forEach((label, counts) -> shownByLabel.put(label, sorted(counts)));
      out.add(
          new WaveForecast(
              wave.number(),
              peak,
              sorted(byZone),
              sorted(byModel),
              Collections.unmodifiableSortedMap(new TreeMap<>(shownByLabel)),
              expected.toSeconds(),
              List.copyOf(unmeasured),
              ApplyTimes.DEFAULT.toSeconds()));
    }
    return out;
  }

  private static Map<String, Integer> sorted(Map<String, Integer> counts) {
    return Collections.unmodifiableSortedMap(new TreeMap<>(counts));
  }
}
