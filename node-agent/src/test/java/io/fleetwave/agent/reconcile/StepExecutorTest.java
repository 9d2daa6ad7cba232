package io.fleetwave.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.gpu.GpuOperationException;
import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.agent.gpu.VirtualFunction;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StepExecutorTest {
  private static final Duration ONE_SECOND = Duration.ofSeconds(1);
  private static final Duration LONG = Duration.ofSeconds(30);

  private final FakeBackend backend = new FakeBackend();
  private final FakeGate gate = new FakeGate();
  private final List<NodeEvent> events = new CopyOnWriteArrayList<>();
  private final StepExecutor executor = new StepExecutor(backend, gate, events::add);

  private final Plan plan =
      new Plan(
          4,
          List.of(
              new Step.SetMigMode(0, true, LONG),
              new Step.ResetGpu(0, List.of(), LONG),
              new Step.EnableVfs(0, 4, LONG),
              new Step.CreateInstance(0, "3g.71gb", 4, 4, LONG),
              new Step.SetVgpuType(0, 1, "H200-3-71C", 1103, LONG),
              new Step.ReleaseGate(LONG)));

  @AfterEach
  void unblock() {
    backend.forever.countDown();
    executor.close();
  }

  @Test
  void runsEveryStepInOrderAndEndsApplied() {
    Outcome outcome = executor.run(plan);

    assertThat(outcome).isEqualTo(new Outcome.Applied(new SpecApplied(4)));
    assertThat(backend.calls)
        .containsExactly(
            "setMigMode 0 true",
            "resetGpu 0",
            "setVfsEnabled 0 4",
            "createGpuInstance 0 3g.71gb 4",
            "setVgpuType 0 1 1103");
    assertThat(gate.released()).isTrue();
    List<String> expected = new ArrayList<>();
    for (int step = 1; step <= 6; step++) { // each of the plan's six steps, one after the other
      expected.addAll(List.of("StepStarted", "StepSucceeded"));
    }
    expected.addAll(List.of("GateReleased", "SpecApplied"));
    assertThat(events.stream().map(e -> e.getClass().getSimpleName()))
        .containsExactlyElementsOf(expected);
    assertThat(((StepStarted) events.get(6)).step().kind()).isEqualTo(StepKind.CREATE_INSTANCE);
    assertThat(events).contains(new GateReleased(4));
  }

  @Test
  void aCallThatNeverReturnsFailsItsStepAtTheDeadline() {
    backend.blockOn = "resetGpu";
    Plan blocking =
        new Plan(
            4,
            List.of(
                new Step.SetMigMode(0, true, LONG),
                new Step.ResetGpu(0, List.of(), ONE_SECOND),
                new Step.EnableVfs(0, 4, LONG),
                new Step.ReleaseGate(LONG)));

    Outcome outcome =
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> executor.run(blocking));

    assertThat(outcome).isInstanceOf(Outcome.Failed.class);
    StepFailed failed = ((Outcome.Failed) outcome).event();
    assertThat(failed.reason()).isEqualTo("GPU 0: reset-gpu: deadline 1s exceeded");
    assertThat(failed.step().kind()).isEqualTo(StepKind.RESET_GPU);
    assertThat(failed.step().deadlineMillis()).isEqualTo(1000);
    assertThat(failed.elapsedMillis()).isBetween(1000L, 9000L);
    assertThat(backend.calls).containsExactly("setMigMode 0 true", "resetGpu 0");
    assertThat(gate.released()).isFalse();
    assertThat(((Outcome.Failed) outcome).gateHeld()).isTrue();
  }

  @Test
  void aRefusalBecomesStepFailedNamingTheHolderAndTheGateStaysHeld() {
    backend.refuseReset = "nvidia-persistenced";

    Outcome outcome = executor.run(plan);

    StepFailed failed = ((Outcome.Failed) outcome).event();
    assertThat(failed.holder()).isEqualTo("nvidia-persistenced");
    assertThat(failed.reason())
        .isEqualTo(
            "GPU 0: reset failed: held open by nvidia-persistenced"
                + " (refused within the 30s deadline)");
    assertThat(backend.calls).containsExactly("setMigMode 0 true", "resetGpu 0");
    assertThat(events.getLast()).isInstanceOf(GateHeld.class);
    assertThat(((GateHeld) events.getLast()).reason())
        .contains("spec generation 4 not applied: step 1 (reset-gpu) failed")
        .contains("nvidia-persistenced");
    assertThat(events).noneMatch(e -> e instanceof SpecApplied || e instanceof GateReleased);
    assertThat(events.stream().filter(e -> e instanceof StepSucceeded)).hasSize(1);
  }

  @Test
  void anUnexpectedErrorFailsTheStepWithItsMessage() {
    backend.breakVfs = true;

    Outcome outcome = executor.run(plan);

    StepFailed failed = ((Outcome.Failed) outcome).event();
    assertThat(failed.reason()).startsWith("GPU 0: enable-vfs: sriov_numvfs: Input/output error");
    assertThat(failed.holder()).isNull();
  }

  @Test
  void holdingTheGateIsAStepAndIsReported() {
    gate.release();
    Outcome outcome =
        executor.run(new Plan(2, List.of(new Step.HoldGate(LONG), new Step.ReleaseGate(LONG))));

    assertThat(outcome).isInstanceOf(Outcome.Applied.class);
    assertThat(gate.holds.get()).isEqualTo(1);
    assertThat(events).contains(new GateHeld(2, "applying spec generation 2"), new GateReleased(2));
  }

  @Test
  void anEmptyPlanIsAppliedAtOnce() {
    assertThat(executor.run(new Plan(9, List.of())))
        .isEqualTo(new Outcome.Applied(new SpecApplied(9)));
    assertThat(events).containsExactly(new SpecApplied(9));
  }

  /** Records calls; can block one call forever, refuse a reset naming a holder, or break. */
  private static final class FakeBackend implements GpuBackend {
    final List<String> calls = new CopyOnWriteArrayList<>();
    final CountDownLatch forever = new CountDownLatch(1);
    volatile String blockOn;
    volatile String refuseReset;
    volatile boolean breakVfs;

    private void call(String operation, Object... args) {
      StringBuilder call = new StringBuilder(operation);
      for (Object arg : args) {
        call.append(' ').append(arg);
      }
      calls.add(call.toString());
      if (operation.equals(blockOn)) {
        // Like a driver call that never answers: ignores interrupts until the test ends.
        while (forever.getCount() > 0) {
          try {
            forever.await();
          } catch (InterruptedException ignored) {
            // keep blocking
          }
        }
      }
    }

    @Override
    public String driverVersion() {
      return "580.95.05";
    }

    @Override
    public List<Gpu> inventory() {
      return List.of();
    }

    @Override
    public void setMigMode(int gpu, boolean enabled) {
      call("setMigMode", gpu, enabled);
    }

    @Override
    public GpuInstance createGpuInstance(int gpu, String profile) {
      throw new UnsupportedOperationException("the executor always names a placement");
    }

    @Override
    public GpuInstance createGpuInstance(int gpu, String profile, int placementStart) {
      call("createGpuInstance", gpu, profile, placementStart);
      return new GpuInstance(profile, placementStart, 4);
    }

    @Override
    public void destroyGpuInstance(int gpu, int placementStart) {
      call("destroyGpuInstance", gpu, placementStart);
    }

    @Override
    public List<GpuProcess> computeProcesses(int gpu) {
      return List.of();
    }

    @Override
    public List<String> handleHolders(int gpu) {
      return refuseReset == null ? List.of() : List.of(refuseReset);
    }

    @Override
    public void resetGpu(int gpu) {
      call("resetGpu", gpu);
      if (refuseReset != null) {
        throw new GpuOperationException(
            gpu, "reset", "held open by " + refuseReset, refuseReset, null);
      }
    }

    @Override
    public void setVfsEnabled(int gpu, int count) {
      call("setVfsEnabled", gpu, count);
      if (breakVfs) {
        throw new IllegalStateException("sriov_numvfs: Input/output error");
      }
    }

    @Override
    public List<VirtualFunction> virtualFunctions(int gpu) {
      return List.of();
    }

    @Override
    public void setVgpuType(int gpu, int vf, int vgpuTypeId) {
      call("setVgpuType", gpu, vf, vgpuTypeId);
    }
  }

  private static final class FakeGate implements DevicePluginGate {
    private volatile boolean released;
    final AtomicInteger holds = new AtomicInteger();

    @Override
    public void hold(String reason) {
      holds.incrementAndGet();
      released = false;
    }

    @Override
    public void release() {
      released = true;
    }

    @Override
    public boolean released() {
      return released;
    }
  }
}
