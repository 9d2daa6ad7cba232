package io.fleetwave.events.node;

import io.fleetwave.events.payload.Require;
import java.util.List;

/** The full GPU state of a node, published at start and after every change. */
public record GpuInventoryReported(List<Gpu> gpus) implements NodeEvent {
  public GpuInventoryReported {
    Require.notNull(gpus, "gpus");
    gpus = Require.distinct(List.copyOf(gpus), Gpu::index, "gpus", "GPU index");
  }
}
