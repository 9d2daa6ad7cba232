package io.fleetwave.simulator;

import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.gpu.GpuBackendContract;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import java.util.List;

/** The GpuBackend contract on the simulator, on a vGPU host so that the H100 offers VFs. */
class SimulatedGpuBackendContractTest extends GpuBackendContract {

  @Override
  protected GpuBackend newNode() {
    return new SimulatedGpuBackend(
        "contract-node",
        "580.95.05",
        List.of(model("A100-40GB"), model("H100-80GB"), model("L4")),
        true);
  }

  @Override
  protected void runComputeProcess(GpuBackend backend, int gpu, String name) {
    ((SimulatedGpuBackend) backend).startProcess(gpu, name);
  }

  private static GpuModel model(String shortName) {
    return GpuCatalog.bundled().find(shortName).orElseThrow();
  }
}
