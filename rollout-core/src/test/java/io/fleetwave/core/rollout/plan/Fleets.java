package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.driver.NodeDriverFacts;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.testfixtures.events.GpuBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Builds fleet nodes for planner tests. */
final class Fleets {
  static final GpuCatalog CATALOG = GpuCatalog.bundled();

  private Fleets() {}

  static Gpu gpu(int index, String model, boolean migOn, List<GpuInstance> instances, int vfs) {
    GpuModel m = CATALOG.find(model).orElseThrow();
    MigMode mode =
        !m.migCapable() ? MigMode.UNSUPPORTED : migOn ? MigMode.ENABLED : MigMode.DISABLED;
    return GpuBuilder.of(m, index)
        .uuid("GPU-" + model + "-" + index)
        .pciBusId(String.format("0000:%02x:00.0", index + 1))
        .migMode(mode)
        .instances(migOn ? instances : List.of())
        .vfsEnabled(Math.min(vfs, m.sriovVfs()))
        .build();
  }

  static List<Gpu> gpus(String model, int count, boolean migOn, List<GpuInstance> instances) {
    List<Gpu> gpus = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      gpus.add(gpu(i, model, migOn, instances, 0));
    }
    return gpus;
  }

  static NodeDriverFacts driver(HostKind kind, String driverVersion) {
    return switch (kind) {
      case UBUNTU ->
          new NodeDriverFacts(
              kind,
              "ubuntu",
              "22.04",
              "5.15.0-1048-nvidia",
              DriverProvider.HOST_PACKAGE,
              driverVersion);
      case UBUNTU_DRIVER_CONTAINER ->
          new NodeDriverFacts(
              kind,
              "ubuntu",
              "22.04",
              "5.15.0-1048-nvidia",
              DriverProvider.DRIVER_CONTAINER,
              driverVersion);
      case TALOS ->
          new NodeDriverFacts(
              kind, "talos", "1.11.2", "6.12.48-talos", DriverProvider.OS_IMAGE, driverVersion);
      case COS ->
          new NodeDriverFacts(
              kind, "cos", "121", "6.6.93+", DriverProvider.OS_IMAGE, driverVersion);
      case VGPU_HOST ->
          new NodeDriverFacts(
              kind,
              "ubuntu",
              "24.04",
              "6.8.0-45-generic",
              DriverProvider.HOST_PACKAGE,
              driverVersion);
    };
  }

  static FleetNode node(
      String name,
      HostKind kind,
      String zone,
      Map<String, String> labels,
      String driverVersion,
      List<Gpu> gpus) {
    return new FleetNode(name, kind, zone, labels, driver(kind, driverVersion), gpus);
  }
}
