package io.fleetwave.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What each step reports on the wire: its kind and its arguments in words. */
class StepTest {
  private static final Duration D = Duration.ofSeconds(5);

  static Stream<Step> oneOfEach() {
    return Stream.of(
        new Step.HoldGate(D),
        new Step.ClearVgpuType(0, 2, D),
        new Step.DestroyInstance(0, "2g.20gb", 4, D),
        new Step.DisableVfs(0, D),
        new Step.SetMigMode(0, true, D),
        new Step.ResetGpu(0, List.of("nvidia-persistenced"), D),
        new Step.EnableVfs(0, 4, D),
        new Step.CreateInstance(0, "3g.40gb", 0, 4, D),
        new Step.SetVgpuType(0, 1, "H100-1-10C", 55, D),
        new Step.ReleaseGate(D));
  }

  /** StepKind names the steps as the records are named: ClearVgpuType is CLEAR_VGPU_TYPE. */
  @ParameterizedTest
  @MethodSource("oneOfEach")
  void eachStepHasTheKindOfItsName(Step step) {
    String upperSnake =
        step.getClass()
            .getSimpleName()
            .replaceAll("([a-z])([A-Z])", "$1_$2")
            .toUpperCase(Locale.ROOT);
    assertThat(step.kind().name()).isEqualTo(upperSnake);
  }

  @ParameterizedTest
  @MethodSource("oneOfEach")
  void eachStepSaysItsArguments(Step step) {
    assertThat(step.detail())
        .isEqualTo(
            switch (step) {
              case Step.HoldGate s -> "hold the device-plugin gate";
              case Step.ClearVgpuType s -> "clear the vGPU type of VF 2";
              case Step.DestroyInstance s -> "destroy 2g.20gb at slice 4";
              case Step.DisableVfs s -> "disable VFs";
              case Step.SetMigMode s -> "MIG mode enabled";
              case Step.ResetGpu s -> "targeted GPU reset (held now by nvidia-persistenced)";
              case Step.EnableVfs s -> "enable 4 VFs";
              case Step.CreateInstance s -> "create 3g.40gb at slice 0";
              case Step.SetVgpuType s -> "vGPU type H100-1-10C (55) on VF 1";
              case Step.ReleaseGate s -> "release the device-plugin gate";
            });
  }
}
