package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepKind;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConvergenceTest {
  private static final PlannedStep RESET = new PlannedStep(0, StepKind.RESET_GPU, 0, "reset", 1000);

  @Test
  void aNodeThatAppliedTheDesiredGenerationHasConverged() {
    ReconcileState state =
        ReconcileState.NONE.apply(new SpecAccepted(3, List.of(RESET))).apply(new SpecApplied(3));
    assertThat(Convergence.of(3L, state)).isEqualTo(new Convergence(true, null));
  }

  @Test
  void anOlderAppliedGenerationIsNotConverged() {
    ReconcileState state = ReconcileState.NONE.apply(new SpecApplied(2));
    assertThat(Convergence.of(3L, state).reason())
        .isEqualTo("desired generation 3, agent applied 2");
  }

  @Test
  void aFailedStepNamesTheStepTheGpuAndTheHolder() {
    ReconcileState state =
        ReconcileState.NONE
            .apply(new SpecAccepted(3, List.of(RESET)))
            .apply(new StepFailed(3, RESET, "refused", "nvidia-persistenced", 10));
    assertThat(Convergence.of(3L, state).reason())
        .isEqualTo(
            "step reset-gpu on GPU 0 of generation 3 failed: refused (held by"
                + " nvidia-persistenced)");
    assertThat(state.steps().getFirst().state()).isEqualTo(ReconcileState.FAILED);
  }

  @Test
  void aRejectedDesiredGenerationSaysWhy() {
    ReconcileState state =
        ReconcileState.NONE
            .apply(new SpecApplied(2))
            .apply(new SpecRejected(3, "c", "forged", "bad signature"));
    assertThat(Convergence.of(3L, state).reason())
        .isEqualTo("spec rejected: FORGED (generation 3): bad signature");
    // A rejected replay of an old generation does not hide a converged node.
    ReconcileState replayed =
        ReconcileState.NONE
            .apply(new SpecApplied(3))
            .apply(new SpecRejected(2, "c", "replayed", "old"));
    assertThat(Convergence.of(3L, replayed).converged()).isTrue();
  }

  @Test
  void aBootIsNotConvergedUntilTheSpecIsAppliedAgain() {
    ReconcileState booted =
        ReconcileState.NONE.apply(new SpecApplied(3)).apply(new NodeBooted("b2", "b1"));
    assertThat(Convergence.of(3L, booted).reason()).contains("booted (boot id b2)");
    assertThat(Convergence.of(3L, booted.apply(new SpecApplied(3))).converged()).isTrue();
  }

  @Test
  void eventsOfASupersededGenerationChangeNothing() {
    ReconcileState state = ReconcileState.NONE.apply(new SpecAccepted(4, List.of(RESET)));
    assertThat(state.apply(new StepFailed(3, RESET, "old", null, 1))).isEqualTo(state);
    assertThat(state.apply(new SpecAccepted(3, List.of()))).isEqualTo(state);
  }
}
