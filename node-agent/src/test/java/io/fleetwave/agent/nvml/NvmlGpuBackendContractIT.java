package io.fleetwave.agent.nvml;

import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.gpu.GpuBackendContract;
import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.probe.HostProbe;
import io.fleetwave.agent.probe.HostProbeSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;

/**
 * The GpuBackend contract on the NVML backend, driving the gcc-built stand-in libnvidia-ml.so.1
 * (skipped, with the reason, where gcc is missing) under a Talos-like driver root with the H100's
 * SR-IOV PF in sysfs.
 */
class NvmlGpuBackendContractIT extends GpuBackendContract {
  private static final int FIRST_PID = 5100;

  private static Path hostRoot;
  private static StubNvmlLibrary stub;
  private int nextPid = FIRST_PID;

  @BeforeAll
  static void buildStub() throws Exception {
    hostRoot = Files.createTempDirectory(Path.of("target"), "nvml-contract-").toAbsolutePath();
    stub = StubNvmlLibrary.build(hostRoot.resolve("usr/local/lib64"));
  }

  @Override
  protected GpuBackend newNode() throws Throwable {
    stub.resetState();
    HostTree.talos(hostRoot)
        .devices("/", 3)
        .executable("usr/local/bin/nvidia-smi", "#!/bin/sh\nexit 0\n")
        .pf("0000:3b:00.0", 16, 0);
    HostFacts facts = new HostProbe(HostProbeSettings.detectAll(hostRoot)).probe();
    return StubNvmlLibrary.backend(facts);
  }

  @Override
  protected void runComputeProcess(GpuBackend backend, int gpu, String name) throws Throwable {
    int pid = nextPid++;
    new HostTree(hostRoot).file("proc/" + pid + "/comm", name + "\n");
    stub.addProcess(gpu, pid, 1024L * 1024 * 1024);
  }
}
