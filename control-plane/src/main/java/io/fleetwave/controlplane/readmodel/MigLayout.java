package io.fleetwave.controlplane.readmodel;

import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The MIG layout as the dashboards read it: of a GPU, its instances' profiles in placement order
 * ("3g.40gb+2g.20gb+1g.10gb+1g.10gb"), "MIG on, no instances", "MIG off" or "no MIG" (a card
 * without MIG); of a node, its GPUs' distinct layouts joined by " | ", "(no GPUs)" without GPUs.
 * Java's form of {@code reports.gpu_layouts.layout} (migration V45) and {@code
 * reports.node_inventory.mig_layout} (V17), which stay in SQL for Grafana; FleetViewIT keeps the
 * two equal.
 */
public final class MigLayout {
  private MigLayout() {}

  /** The layout of one GPU ({@code reports.gpu_layouts.layout}). */
  public static String of(NodeView.GpuView gpu) {
    return switch (gpu.migMode()) {
      case "enabled" ->
          gpu.instances().isEmpty()
              ? "MIG on, no instances"
              : gpu.instances().stream()
                  .sorted(Comparator.comparingInt(instance -> instance.placement().start()))
                  .map(NodeView.InstanceView::profile)
                  .collect(Collectors.joining("+"));
      case "disabled" -> "MIG off";
      default -> "no MIG";
    };
  }

  /**
   * The layout of a node ({@code reports.node_inventory.mig_layout}): its GPUs' layouts, each once,
   * in the order of the C collation (a {@code string_agg(DISTINCT ...)} sorts them), joined by " |
   * ".
   */
  public static String ofNode(List<NodeView.GpuView> gpus) {
    if (gpus.isEmpty()) {
      return "(no GPUs)";
    }
    TreeSet<String> layouts = new TreeSet<>(CCollation.ORDER);
    gpus.forEach(gpu -> layouts.add(of(gpu)));
    return String.join(" | ", layouts);
  }
}
