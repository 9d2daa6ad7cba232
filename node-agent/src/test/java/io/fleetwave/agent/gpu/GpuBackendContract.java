package io.fleetwave.agent.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link GpuBackend} refuses, and lets happen, the same way (hardware-model.md): run
 * against the simulator always and against the NVML backend on the gcc-built stand-in library where
 * gcc is present. A simulated node that allows what the NVML path refuses (or the other way round)
 * fails here. Messages differ between backends; each case checks the GPU, the reason's key words
 * and that nothing changed.
 *
 * <p>The node under test has three GPUs, in this order: an A100-40GB (Ampere: a MIG mode change
 * waits for a reset; no SR-IOV), an H100 80GB (Hopper: MIG mode changes at once; an SR-IOV PF
 * offering at least 16 VFs) and an L4 (no MIG). MIG is off everywhere at the start.
 */
public abstract class GpuBackendContract {
  protected static final int A100 = 0;
  protected static final int H100 = 1;
  protected static final int L4 = 2;

  private GpuBackend backend;

  /** A fresh node as described above; closed after each case. */
  protected abstract GpuBackend newNode() throws Throwable;

  /** Starts a compute process called {@code name} on the GPU, as a workload would. */
  protected abstract void runComputeProcess(GpuBackend backend, int gpu, String name)
      throws Throwable;

  @BeforeEach
  void openNode() throws Throwable {
    backend = newNode();
  }

  @AfterEach
  void closeNode() {
    backend.close();
  }

  @Test
  void theNodeIsTheOneTheContractDescribes() {
    List<Gpu> gpus = backend.inventory();

    assertThat(gpus)
        .extracting(Gpu::pciDeviceId)
        .containsExactly("0x20B010DE", "0x233010DE", "0x27B810DE");
    assertThat(gpus).extracting(Gpu::migCapable).containsExactly(true, true, false);
    assertThat(gpus.get(H100).vfsTotal()).isGreaterThanOrEqualTo(16);
  }

  @Test
  void migModeOnANonMigCardIsRefused() {
    assertRefused(L4, () -> backend.setMigMode(L4, true), "not MIG capable");
    assertThat(backend.inventory().get(L4).migMode()).isEqualTo(MigMode.UNSUPPORTED);
  }

  @Test
  void instancesOnANonMigCardAreRefused() {
    assertRefused(L4, () -> backend.createGpuInstance(L4, "1g.10gb"), "not MIG capable");
  }

  @Test
  void onAmpereTheMigModeStaysPendingAndInstancesWaitForIt() {
    assertRefused(A100, () -> backend.createGpuInstance(A100, "1g.5gb"));

    backend.setMigMode(A100, true);

    Gpu a100 = backend.inventory().get(A100);
    assertThat(a100.migMode()).isEqualTo(MigMode.DISABLED);
    assertThat(a100.migModePending()).isEqualTo(MigMode.ENABLED);
    assertRefused(A100, () -> backend.createGpuInstance(A100, "1g.5gb"));
    assertThat(backend.inventory().get(A100).instances()).isEmpty();
  }

  @Test
  void onHopperTheMigModeChangesAtOnce() {
    backend.setMigMode(H100, true);

    Gpu h100 = backend.inventory().get(H100);
    assertThat(h100.migMode()).isEqualTo(MigMode.ENABLED);
    assertThat(h100.migModePending()).isEqualTo(MigMode.ENABLED);
  }

  @Test
  void aProfileTheModelDoesNotHaveIsRefused() {
    backend.setMigMode(H100, true);

    assertRefused(H100, () -> backend.createGpuInstance(H100, "3g.20gb"), "3g.20gb");
    assertRefused(H100, () -> backend.createGpuInstance(H100, "1g.5gb", 0), "1g.5gb");
    assertThat(backend.inventory().get(H100).instances()).isEmpty();
  }

  @Test
  void aPlacementOutsideTheProfilesStartsIsRefused() {
    backend.setMigMode(H100, true);

    assertRefused(H100, () -> backend.createGpuInstance(H100, "3g.40gb", 2));
    assertRefused(H100, () -> backend.createGpuInstance(H100, "1g.10gb", 7));
    assertThat(backend.inventory().get(H100).instances()).isEmpty();
  }

  @Test
  void overlappingInstancesAreRefused() {
    backend.setMigMode(H100, true);
    backend.createGpuInstance(H100, "4g.40gb", 0);

    assertRefused(H100, () -> backend.createGpuInstance(H100, "2g.20gb", 2));
    assertRefused(H100, () -> backend.createGpuInstance(H100, "1g.10gb", 3));
    assertThat(backend.inventory().get(H100).instances())
        .containsExactly(new GpuInstance("4g.40gb", 0, 4));
  }

  @Test
  void aFullGpuAndAProfilesMaximumRefuseOneMore() {
    backend.setMigMode(H100, true);
    backend.createGpuInstance(H100, "3g.40gb");
    backend.createGpuInstance(H100, "3g.40gb");

    assertRefused(H100, () -> backend.createGpuInstance(H100, "1g.10gb"));
    assertRefused(H100, () -> backend.createGpuInstance(H100, "3g.40gb"));
    assertThat(backend.inventory().get(H100).instances())
        .containsExactly(new GpuInstance("3g.40gb", 0, 4), new GpuInstance("3g.40gb", 4, 4));
  }

  @Test
  void aSecondMediaExtensionInstanceIsRefused() {
    backend.setMigMode(H100, true);
    backend.createGpuInstance(H100, "1g.10gb+me", 0);

    assertRefused(H100, () -> backend.createGpuInstance(H100, "1g.10gb+me", 1));
    assertThat(backend.inventory().get(H100).instances())
        .containsExactly(new GpuInstance("1g.10gb+me", 0, 1));
  }

  @Test
  void destroyingWhereNoInstanceStartsIsRefused() {
    backend.setMigMode(H100, true);
    backend.createGpuInstance(H100, "3g.40gb", 0);

    assertRefused(H100, () -> backend.destroyGpuInstance(H100, 4), "memory slice 4");
    assertThat(backend.inventory().get(H100).instances()).hasSize(1);
  }

  @Test
  void resetIsRefusedWhileVfsAreEnabled() {
    backend.setVfsEnabled(H100, 16);

    assertThat(backend.inventory().get(H100).vfsEnabled()).isEqualTo(16);
    assertThat(assertRefused(H100, () -> backend.resetGpu(H100)).holder()).contains("VFs enabled");
  }

  @Test
  void resetIsRefusedWhileAComputeProcessRunsAndNamesIt() throws Throwable {
    runComputeProcess(backend, H100, "python3");

    assertThat(backend.computeProcesses(H100))
        .extracting(GpuProcess::name)
        .containsExactly("python3");
    assertThat(assertRefused(H100, () -> backend.resetGpu(H100)).holder()).contains("python3");
  }

  @Test
  void vfsOnAGpuWithoutSriovAreRefused() {
    assertRefused(A100, () -> backend.setVfsEnabled(A100, 1));
    assertThat(backend.inventory().get(A100).vfsEnabled()).isZero();
  }

  @Test
  void aGpuTheNodeDoesNotHaveIsRefused() {
    assertRefused(7, () -> backend.setMigMode(7, true), "no such GPU");
    assertRefused(7, () -> backend.createGpuInstance(7, "1g.10gb"), "no such GPU");
  }

  /** The refusal of {@code call} on {@code gpu}, its message containing {@code reason}. */
  private static GpuOperationException assertRefused(
      int gpu, ThrowingCallable call, String... reason) {
    GpuOperationException refusal = catchThrowableOfType(GpuOperationException.class, call);
    assertThat(refusal).as("the refusal").isNotNull();
    assertThat(refusal.gpu()).as("the refused GPU").isEqualTo(gpu);
    if (reason.length > 0) {
      assertThat(refusal.getMessage()).contains(reason);
    }
    return refusal;
  }
}
