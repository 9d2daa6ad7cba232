package io.fleetwave.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.agent.reconcile.Scenarios.Scenario;
import io.fleetwave.events.node.StepKind;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

class ReconcilerProperties {
  /** hardware-model.md rule 7, preceded by the teardown; written out here, not read from code. */
  private static final List<StepKind> RULE_7_ORDER =
      List.of(
          StepKind.HOLD_GATE,
          StepKind.CLEAR_VGPU_TYPE,
          StepKind.DESTROY_INSTANCE,
          StepKind.DISABLE_VFS,
          StepKind.SET_MIG_MODE,
          StepKind.RESET_GPU,
          StepKind.ENABLE_VFS,
          StepKind.CREATE_INSTANCE,
          StepKind.SET_VGPU_TYPE,
          StepKind.RELEASE_GATE);

  private final Reconciler reconciler = new Reconciler(Scenarios.CATALOG, StepDeadlines.defaults());

  @Property(tries = 400)
  void applyingThePlanReachesTheSpec(@ForAll("scenarios") Scenario scenario) throws Exception {
    Plan plan = reconciler.plan(scenario.observed(), scenario.spec());

    NodeModel after = new NodeModel(scenario.observed(), Scenarios.CATALOG).apply(plan);

    Statistics.label("reset").collect(has(plan, StepKind.RESET_GPU));
    Statistics.label("VFs disabled").collect(has(plan, StepKind.DISABLE_VFS));
    Statistics.label("instances created").collect(has(plan, StepKind.CREATE_INSTANCE));
    Statistics.label("vGPU types written").collect(has(plan, StepKind.SET_VGPU_TYPE));
    Statistics.label("steps").collect(plan.steps().size() / 5 * 5);
    assertThat(after.mismatches(scenario.spec())).as("plan %s", plan.steps()).isEmpty();
  }

  @Property(tries = 400)
  void replanningTheResultGivesAnEmptyPlan(@ForAll("scenarios") Scenario scenario)
      throws Exception {
    Plan plan = reconciler.plan(scenario.observed(), scenario.spec());
    NodeModel after = new NodeModel(scenario.observed(), Scenarios.CATALOG).apply(plan);

    Plan again = reconciler.plan(after.observe(), scenario.spec());

    assertThat(again.steps()).as("after %s", plan.steps()).isEmpty();
  }

  @Property(tries = 400)
  void stepsFollowTheHardwareOrder(@ForAll("scenarios") Scenario scenario) throws Exception {
    List<Step> steps = reconciler.plan(scenario.observed(), scenario.spec()).steps();

    // Phase order holds for the node as a whole, hence for each GPU: teardown, MIG mode, reset,
    // VFs, instances, vGPU types, gate.
    List<Integer> phases = steps.stream().map(s -> RULE_7_ORDER.indexOf(s.kind())).toList();
    assertThat(phases).as("%s", steps).isSorted();
    assertThat(steps.stream().filter(s -> s.kind() == StepKind.RELEASE_GATE)).hasSizeLessThan(2);
    assertThat(steps.stream().filter(s -> s.kind() == StepKind.HOLD_GATE)).hasSizeLessThan(2);
  }

  @Property(tries = 400)
  void instancesAreOnlyCreatedOnceTheVfsAreAsWanted(@ForAll("scenarios") Scenario scenario)
      throws Exception {
    Plan plan = reconciler.plan(scenario.observed(), scenario.spec());
    NodeModel model = new NodeModel(scenario.observed(), Scenarios.CATALOG).apply(plan);

    for (int[] create : model.vfsAtCreate) {
      int gpu = create[0];
      assertThat(create[1])
          .as("VFs on GPU %d when an instance is created, in %s", gpu, plan.steps())
          .isEqualTo(scenario.spec().gpu(gpu).orElseThrow().vfs());
    }
  }

  @Property(tries = 400)
  void aResetIsNeverPlannedWhileVfsStayEnabled(@ForAll("scenarios") Scenario scenario)
      throws Exception {
    Plan plan = reconciler.plan(scenario.observed(), scenario.spec());
    NodeModel model = new NodeModel(scenario.observed(), Scenarios.CATALOG);
    plan.steps().forEach(model::apply);

    assertThat(model.vfsAtReset).allMatch(vfs -> vfs == 0);
  }

  /** The agent crashes after any step: replanning from what is there finishes the job, no more. */
  @Property(tries = 300)
  void aCrashAfterAnyStepConvergesWithoutRedoingWork(
      @ForAll("scenarios") Scenario scenario, @ForAll @IntRange(min = 0, max = 40) int crashAfter)
      throws Exception {
    Plan plan = reconciler.plan(scenario.observed(), scenario.spec());
    int done = Math.min(crashAfter, plan.steps().size());
    NodeModel model = new NodeModel(scenario.observed(), Scenarios.CATALOG);
    plan.steps().subList(0, done).forEach(model::apply);

    Plan rest = reconciler.plan(model.observe(), scenario.spec());
    rest.steps().forEach(model::apply);

    assertThat(model.mismatches(scenario.spec())).isEmpty();
    assertThat(done + rest.steps().size())
        .as("steps before the crash %s, after %s", plan.steps().subList(0, done), rest.steps())
        .isLessThanOrEqualTo(plan.steps().size());
    assertThat(createdInstances(rest)).isLessThanOrEqualTo(createdInstances(plan));
  }

  private static long createdInstances(Plan plan) {
    return plan.steps().stream().filter(s -> s.kind() == StepKind.CREATE_INSTANCE).count();
  }

  @Property(tries = 200)
  void aResetListsWhatHoldsTheGpu(@ForAll("scenarios") Scenario scenario) throws Exception {
    Plan plan = reconciler.plan(scenario.observed(), scenario.spec());

    for (Step step : plan.steps()) {
      if (step instanceof Step.ResetGpu reset) {
        ObservedGpu gpu = scenario.observed().gpu(reset.gpu()).orElseThrow();
        assertThat(reset.expectedBlockers()).hasSize(gpu.processes().size() + gpu.holders().size());
      }
    }
  }

  private static boolean has(Plan plan, StepKind kind) {
    return plan.steps().stream().anyMatch(s -> s.kind() == kind);
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    return Arbitraries.longs().map(seed -> Scenarios.random(new Random(seed)));
  }
}
