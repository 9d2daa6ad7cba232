package io.fleetwave.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testfixtures.events.GpuBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReconcilerTest {
  private static final GpuCatalog CATALOG = GpuCatalog.bundled();
  private static final StepDeadlines DEADLINES = StepDeadlines.defaults();
  private static final Duration MIG = DEADLINES.of(StepKind.SET_MIG_MODE);
  private static final Duration VFS = DEADLINES.of(StepKind.ENABLE_VFS);
  private static final Duration CREATE = DEADLINES.of(StepKind.CREATE_INSTANCE);
  private static final Duration VGPU = DEADLINES.of(StepKind.SET_VGPU_TYPE);
  private static final Duration GATE = DEADLINES.of(StepKind.RELEASE_GATE);
  private static final Duration RESET = DEADLINES.of(StepKind.RESET_GPU);

  private final Reconciler reconciler = new Reconciler(CATALOG, DEADLINES);

  /** Seed 003: an H200 vGPU host after a reboot lost MIG mode, VFs, instances and vGPU types. */
  @Test
  void vgpuHostAfterRebootGoesMigThenVfsThenInstancesThenTypesThenGate() throws Exception {
    ObservedNode rebooted = node(false, gpu(0, "H200", MigMode.DISABLED, MigMode.DISABLED, 0));
    NodeSpec spec =
        spec(
            new GpuSpec(
                0,
                true,
                Map.of("1g.18gb", 2, "2g.35gb", 1, "3g.71gb", 1),
                4,
                Map.of(0, "H200-1-18C", 1, "H200-1-18C", 2, "H200-2-35C", 3, "H200-3-71C")));

    Plan plan = reconciler.plan(rebooted, spec);

    assertThat(plan.steps())
        .containsExactly(
            new Step.SetMigMode(0, true, MIG),
            new Step.EnableVfs(0, 4, VFS),
            new Step.CreateInstance(0, "2g.35gb", 0, 2, CREATE),
            new Step.CreateInstance(0, "1g.18gb", 2, 1, CREATE),
            new Step.CreateInstance(0, "1g.18gb", 3, 1, CREATE),
            new Step.CreateInstance(0, "3g.71gb", 4, 4, CREATE),
            new Step.SetVgpuType(0, 0, "H200-1-18C", 1101, VGPU),
            new Step.SetVgpuType(0, 1, "H200-1-18C", 1101, VGPU),
            new Step.SetVgpuType(0, 2, "H200-2-35C", 1102, VGPU),
            new Step.SetVgpuType(0, 3, "H200-3-71C", 1103, VGPU),
            new Step.ReleaseGate(GATE));
    assertThat(plan.generation()).isEqualTo(7);
    assertThat(plan.described().get(2).detail()).isEqualTo("create 2g.35gb at slice 0");
  }

  @Test
  void ampereNeedsAResetToEnableMigAndHopperDoesNot() throws Exception {
    NodeSpec spec = spec(new GpuSpec(0, true, Map.of("7g.80gb", 1), 0, Map.of()));

    Plan ampere =
        reconciler.plan(
            node(false, gpu(0, "A100-80GB", MigMode.DISABLED, MigMode.DISABLED, 0)), spec);
    Plan hopper =
        reconciler.plan(
            node(false, gpu(0, "H100-80GB", MigMode.DISABLED, MigMode.DISABLED, 0)), spec);

    assertThat(kinds(ampere))
        .containsExactly(
            StepKind.SET_MIG_MODE,
            StepKind.RESET_GPU,
            StepKind.CREATE_INSTANCE,
            StepKind.RELEASE_GATE);
    assertThat(kinds(hopper))
        .containsExactly(StepKind.SET_MIG_MODE, StepKind.CREATE_INSTANCE, StepKind.RELEASE_GATE);
  }

  @Test
  void aPendingModeWithVfsOnDisablesThemResetsAndEnablesThemAgainBeforeInstances()
      throws Exception {
    ObservedNode pending = node(true, gpu(0, "H200", MigMode.DISABLED, MigMode.ENABLED, 4));
    NodeSpec spec = spec(new GpuSpec(0, true, Map.of("7g.141gb", 1), 4, Map.of(0, "H200-7-141C")));

    assertThat(kinds(reconciler.plan(pending, spec)))
        .containsExactly(
            StepKind.HOLD_GATE,
            StepKind.DISABLE_VFS,
            StepKind.RESET_GPU,
            StepKind.ENABLE_VFS,
            StepKind.CREATE_INSTANCE,
            StepKind.SET_VGPU_TYPE,
            StepKind.RELEASE_GATE);
  }

  @Test
  void aResetIsPlannedEvenWhenSomethingHoldsTheGpuAndNamesIt() throws Exception {
    ObservedGpu held =
        new ObservedGpu(
            gpu(0, "A100-80GB", MigMode.DISABLED, MigMode.DISABLED, 0).gpu(),
            List.of(),
            List.of(new GpuProcess(4711, "python", 2048)),
            List.of("nvidia-persistenced"));
    NodeSpec spec = spec(new GpuSpec(0, true, Map.of(), 0, Map.of()));

    Plan plan = reconciler.plan(new ObservedNode(List.of(held), false), spec);

    assertThat(plan.steps())
        .contains(
            new Step.ResetGpu(
                0, List.of("compute process 4711 (python)", "nvidia-persistenced"), RESET));
  }

  @Test
  void aConvergedNodeGetsAnEmptyPlan() throws Exception {
    ObservedNode converged =
        migH100Holding(new GpuInstance("3g.40gb", 4, 4), new GpuInstance("4g.40gb", 0, 4));
    NodeSpec spec = spec(new GpuSpec(0, true, Map.of("3g.40gb", 1, "4g.40gb", 1), 0, Map.of()));

    assertThat(reconciler.plan(converged, spec).steps()).isEmpty();
  }

  @Test
  void aConvergedNodeWithTheGateStillHeldOnlyReleasesIt() throws Exception {
    ObservedNode held = node(false, gpu(0, "T4", MigMode.UNSUPPORTED, MigMode.UNSUPPORTED, 0));

    assertThat(reconciler.plan(held, spec(new GpuSpec(0, false, Map.of(), 0, Map.of()))).steps())
        .containsExactly(new Step.ReleaseGate(GATE));
  }

  @Test
  void aChangeOnAReleasedNodeHoldsTheGateFirstUnlessThePolicyIsOpen() throws Exception {
    ObservedNode released = node(true, gpu(0, "H100-80GB", MigMode.DISABLED, MigMode.DISABLED, 0));
    GpuSpec mig = new GpuSpec(0, true, Map.of(), 0, Map.of());

    assertThat(kinds(reconciler.plan(released, spec(mig))))
        .containsExactly(StepKind.HOLD_GATE, StepKind.SET_MIG_MODE, StepKind.RELEASE_GATE);
    assertThat(
            kinds(
                reconciler.plan(
                    released, new NodeSpec("n", 7, null, List.of(mig), GatePolicy.OPEN))))
        .containsExactly(StepKind.SET_MIG_MODE);
  }

  @Test
  void wantedInstancesThatExistStayWhereTheyAre() throws Exception {
    ObservedNode node =
        migH100Holding(new GpuInstance("1g.10gb", 6, 1), new GpuInstance("2g.20gb", 0, 2));
    NodeSpec spec = spec(new GpuSpec(0, true, Map.of("1g.10gb", 2, "3g.40gb", 1), 0, Map.of()));

    assertThat(reconciler.plan(node, spec).steps())
        .containsExactly(
            new Step.HoldGate(DEADLINES.of(StepKind.HOLD_GATE)),
            new Step.DestroyInstance(0, "2g.20gb", 0, DEADLINES.of(StepKind.DESTROY_INSTANCE)),
            new Step.CreateInstance(0, "3g.40gb", 0, 4, CREATE),
            new Step.CreateInstance(0, "1g.10gb", 4, 1, CREATE),
            new Step.ReleaseGate(GATE));
  }

  @Test
  void gpusNotInTheSpecAreLeftAlone() throws Exception {
    ObservedNode node =
        node(
            true,
            gpu(0, "H100-80GB", MigMode.DISABLED, MigMode.DISABLED, 0),
            gpu(1, "A100-80GB", MigMode.ENABLED, MigMode.DISABLED, 0));

    assertThat(reconciler.plan(node, spec(new GpuSpec(0, false, Map.of(), 0, Map.of()))).steps())
        .isEmpty();
  }

  /** A100 (GPU 0), H200 (GPU 1) and T4 (GPU 2): each spec is refused naming the GPU and field. */
  @ParameterizedTest
  @MethodSource("unplannableSpecs")
  void unplannableSpecsNameTheGpuAndTheField(GpuSpec gpu, String message) {
    ObservedNode node =
        node(
            false,
            gpu(0, "A100-80GB", MigMode.DISABLED, MigMode.DISABLED, 0),
            gpu(1, "H200", MigMode.DISABLED, MigMode.DISABLED, 0),
            gpu(2, "T4", MigMode.UNSUPPORTED, MigMode.UNSUPPORTED, 0));

    assertThatThrownBy(() -> reconciler.plan(node, spec(gpu)))
        .isInstanceOf(UnplannableSpecException.class)
        .hasMessageStartingWith(message);
  }

  static Stream<Arguments> unplannableSpecs() {
    return Stream.of(
        Arguments.of(
            new GpuSpec(0, true, Map.of("5g.50gb", 1), 0, Map.of()),
            "GPU 0: field 'instances.5g.50gb': profile 5g.50gb does not exist on A100-80GB"),
        Arguments.of(
            new GpuSpec(0, true, Map.of("4g.40gb", 1, "7g.80gb", 1), 0, Map.of()),
            "GPU 0: field 'instances': 1 x 4g.40gb + 1 x 7g.80gb does not fit A100-80GB"),
        Arguments.of(
            new GpuSpec(0, true, Map.of("3g.40gb", 3), 0, Map.of()),
            "GPU 0: field 'instances.3g.40gb': A100-80GB holds at most 2 x 3g.40gb, 3 asked"),
        Arguments.of(
            new GpuSpec(0, false, Map.of(), 2, Map.of()),
            "GPU 0: field 'vfs': NVIDIA A100-SXM4-80GB has no SR-IOV virtual functions"),
        Arguments.of(
            new GpuSpec(1, false, Map.of(), 17, Map.of()),
            "GPU 1: field 'vfs': the host offers 16 VFs, 17 asked"),
        Arguments.of(
            new GpuSpec(1, false, Map.of(), 2, Map.of(1, "L4-4Q")),
            "GPU 1: field 'vgpuTypes.1': 'L4-4Q' is not a vGPU type of NVIDIA H200"),
        Arguments.of(
            new GpuSpec(1, true, Map.of("2g.35gb", 1), 2, Map.of(0, "H200-1-18C")),
            "GPU 1: field 'vgpuTypes.0': H200-1-18C needs its own 1g.18gb GPU instance (rule 5)"),
        Arguments.of(
            new GpuSpec(2, true, Map.of(), 0, Map.of()),
            "GPU 2: field 'migEnabled': Tesla T4 is not MIG capable"),
        Arguments.of(
            new GpuSpec(5, false, Map.of(), 0, Map.of()),
            "GPU 5: not present on this node (it has 3 GPUs)"));
  }

  private static List<StepKind> kinds(Plan plan) {
    return plan.steps().stream().map(Step::kind).toList();
  }

  private static NodeSpec spec(GpuSpec... gpus) {
    return new NodeSpec("n", 7, null, List.of(gpus), GatePolicy.HOLD_UNTIL_APPLIED);
  }

  private static ObservedNode node(boolean gateReleased, ObservedGpu... gpus) {
    return new ObservedNode(List.of(gpus), gateReleased);
  }

  static ObservedGpu gpu(int index, String model, MigMode now, MigMode pending, int vfs) {
    GpuModel m = CATALOG.find(model).orElseThrow();
    return new ObservedGpu(
        Scenarios.gpu(m, index, now, pending).vfsEnabled(vfs).build(),
        Scenarios.vfs(m, index, vfs, vf -> 0),
        List.of(),
        List.of());
  }

  /** A node with its gate released whose GPU 0 is a MIG-enabled H100 holding {@code instances}. */
  private static ObservedNode migH100Holding(GpuInstance... instances) {
    return node(
        true, withInstances(gpu(0, "H100-80GB", MigMode.ENABLED, MigMode.ENABLED, 0), instances));
  }

  private static ObservedGpu withInstances(ObservedGpu gpu, GpuInstance... instances) {
    Gpu g = gpu.gpu();
    return new ObservedGpu(
        GpuBuilder.from(g).instances(List.of(instances)).build(),
        gpu.vfs(),
        gpu.processes(),
        gpu.holders());
  }
}
