package io.fleetwave.events.spec;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;
import static io.fleetwave.events.payload.Require.positive;

import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The full desired state of one node, kept in the compacted {@code fleet.node-desired} topic. GPUs
 * not listed keep whatever state they have.
 *
 * @param node the node name (equal to the record key and the CloudEvents subject)
 * @param generation grows by one with every change; an agent never applies one not newer than the
 *     one it applied
 * @param driverVersion the driver version wanted, or null to leave the driver alone
 * @param gpus per-GPU desired state, at most one per index, kept sorted by index
 * @param gate how the device-plugin gate follows this spec
 */
public record NodeSpec(
    String node, long generation, String driverVersion, List<GpuSpec> gpus, GatePolicy gate) {

  public NodeSpec {
    notBlank(node, "node");
    positive(generation, "generation");
    if (driverVersion != null) {
      notBlank(driverVersion, "driverVersion");
    }
    notNull(gpus, "gpus");
    notNull(gate, "gate");
    Set<Integer> seen = new HashSet<>();
    for (GpuSpec gpu : gpus) {
      notNull(gpu, "gpus[]");
      if (!seen.add(gpu.index())) {
        throw new IllegalArgumentException(
            "field 'gpus' lists GPU " + gpu.index() + " more than once");
      }
    }
    gpus = gpus.stream().sorted(Comparator.comparingInt(GpuSpec::index)).toList();
  }

  public Optional<GpuSpec> gpu(int index) {
    return gpus.stream().filter(g -> g.index() == index).findFirst();
  }
}
