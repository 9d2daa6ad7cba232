package io.fleetwave.agent.desired;

import static io.fleetwave.agent.desired.SignedCommands.spec;
import static io.fleetwave.events.node.StepKind.CREATE_INSTANCE;
import static io.fleetwave.events.node.StepKind.ENABLE_VFS;
import static io.fleetwave.events.node.StepKind.RELEASE_GATE;
import static io.fleetwave.events.node.StepKind.RESET_GPU;
import static io.fleetwave.events.node.StepKind.SET_MIG_MODE;
import static io.fleetwave.events.node.StepKind.SET_VGPU_TYPE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fleetwave.agent.AgentSettings;
import io.fleetwave.agent.NodeAgent;
import io.fleetwave.agent.gate.AgentGate;
import io.fleetwave.agent.gate.GateFile;
import io.fleetwave.agent.gpu.VirtualFunction;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.agent.reconcile.StepDeadlines;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.command.Reprobe;
import io.fleetwave.events.command.ResetGpu;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.SimulatedGpuBackend;
import io.fleetwave.simulator.SimulatedHostFacts;
import io.fleetwave.simulator.SimulatedNode;
import io.fleetwave.simulator.TestFleets;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Simulated agents of every host kind follow their signed desired spec from a real Kafka broker:
 * converge in hardware order, recover after a reboot hands-off, survive a crash after any step,
 * report reset gates, and refuse bad commands without touching the node.
 */
@ExtendWith(KafkaExtension.class)
class SpecFollowingIT {
  private static final String EVENTS = "it.node-events";
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Duration RESET_DEADLINE = Duration.ofSeconds(7);

  private static final String FLEET =
      """
      nodes:
        - {name-prefix: ubuntu-a100, count: 2, host: ubuntu, driver-version: "580.95.05",
           gpus: [{model: "0x20B210DE", count: 1}]}
        - {name-prefix: dc-h100, count: 1, host: ubuntu-driver-container,
           driver-version: "580.95.05", gpus: [{model: "0x233010DE", count: 1}]}
        - {name-prefix: talos-h200, count: 2, host: talos, driver-version: "580.95.05",
           gpus: [{model: "0x233510DE", count: 1}]}
        - {name-prefix: cos-a100, count: 1, host: cos, driver-version: "580.95.05",
           gpus: [{model: "0x20B210DE", count: 1}]}
        - {name-prefix: vgpu-h200, count: 4, host: vgpu-host, driver-version: "580.95.05",
           gpus: [{model: "0x233510DE", count: 1}]}
      """;

  private static final GpuSpec A100_LAYOUT =
      new GpuSpec(0, true, Map.of("3g.40gb", 1, "2g.20gb", 1, "1g.10gb", 2), 0, Map.of());
  private static final GpuSpec H100_LAYOUT =
      new GpuSpec(0, true, Map.of("3g.40gb", 2), 0, Map.of());
  private static final GpuSpec H200_LAYOUT =
      new GpuSpec(0, true, Map.of("3g.71gb", 1, "2g.35gb", 1, "1g.18gb", 2), 0, Map.of());
  private static final GpuSpec H200_VGPU =
      new GpuSpec(
          0,
          true,
          Map.of("1g.18gb", 2, "2g.35gb", 1, "3g.71gb", 1),
          4,
          Map.of(0, "H200-1-18C", 1, "H200-1-18C", 2, "H200-2-35C", 3, "H200-3-71C"));

  /** Where the next crash is injected: right after step {@code ordinal} of {@code node}. */
  private record CrashPoint(String node, int ordinal) {}

  private static final AtomicReference<CrashPoint> CRASH_AT = new AtomicReference<>();

  @TempDir static Path stateRoot;
  private static KafkaBroker kafka;
  private static SimulatedFleet fleet;
  private static SignedCommands control;
  private static NodeEventsReader log;
  private static CommandSigner signer;

  @BeforeAll
  static void startFleet() {
    kafka.createTopics(2, EVENTS, Topics.NODE_COMMANDS);
    kafka.createTopics(2, KafkaBroker.compacted(), Topics.NODE_DESIRED);
    signer = CommandSigner.generate();
    SpecFollowing following =
        SpecFollowing.of(signer.verifier())
            .withDeadlines(StepDeadlines.defaults().with(RESET_GPU, RESET_DEADLINE))
            .withRetryBackoff(List.of(Duration.ofMillis(300), Duration.ofSeconds(1)))
            .withInterceptor(SpecFollowingIT::maybeCrash);
    fleet = TestFleets.following(kafka, FLEET, "SpecFollowingIT", EVENTS, following, stateRoot);
    control = new SignedCommands(kafka.bootstrapServers(), signer);
    log = new NodeEventsReader(kafka.bootstrapServers(), EVENTS);
  }

  @AfterAll
  static void stopFleet() throws Exception {
    TestFleets.closeAll(fleet, log, control);
  }

  private static void maybeCrash(String node, PlannedStep step) {
    CrashPoint point = CRASH_AT.get();
    if (point != null && point.node().equals(node) && point.ordinal() == step.ordinal()) {
      CRASH_AT.set(null);
      fleet.node(node).orElseThrow().crash();
    }
  }

  static Stream<Arguments> hostKinds() {
    List<StepKind> a100AfterBoot =
        List.of(
            SET_MIG_MODE,
            RESET_GPU,
            CREATE_INSTANCE,
            CREATE_INSTANCE,
            CREATE_INSTANCE,
            CREATE_INSTANCE,
            RELEASE_GATE);
    // The A100 keeps its MIG mode across a reboot; Hopper on these hosts loses it (seed 003).
    List<StepKind> a100AfterReboot =
        List.of(CREATE_INSTANCE, CREATE_INSTANCE, CREATE_INSTANCE, CREATE_INSTANCE, RELEASE_GATE);
    List<StepKind> h100 = List.of(SET_MIG_MODE, CREATE_INSTANCE, CREATE_INSTANCE, RELEASE_GATE);
    List<StepKind> h200 =
        List.of(
            SET_MIG_MODE,
            CREATE_INSTANCE,
            CREATE_INSTANCE,
            CREATE_INSTANCE,
            CREATE_INSTANCE,
            RELEASE_GATE);
    List<StepKind> vgpu =
        List.of(
            SET_MIG_MODE,
            ENABLE_VFS,
            CREATE_INSTANCE,
            CREATE_INSTANCE,
            CREATE_INSTANCE,
            CREATE_INSTANCE,
            SET_VGPU_TYPE,
            SET_VGPU_TYPE,
            SET_VGPU_TYPE,
            SET_VGPU_TYPE,
            RELEASE_GATE);
    return Stream.of(
        Arguments.of("ubuntu-a100-0", A100_LAYOUT, a100AfterBoot, a100AfterReboot),
        Arguments.of("dc-h100-0", H100_LAYOUT, h100, h100),
        Arguments.of("talos-h200-0", H200_LAYOUT, h200, h200),
        Arguments.of("cos-a100-0", A100_LAYOUT, a100AfterBoot, a100AfterReboot),
        Arguments.of("vgpu-h200-0", H200_VGPU, vgpu, vgpu));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostKinds")
  void appliesTheSpecInHardwareOrderAndRecoversAfterARebootHandsOff(
      String name, GpuSpec layout, List<StepKind> firstOrder, List<StepKind> afterReboot) {
    SimulatedNode node = fleet.node(name).orElseThrow();
    control.desired(spec(name, 1, layout));

    long firstEpoch = node.epoch();
    awaitApplied(name, firstEpoch, 1);
    assertThat(succeededKinds(name, firstEpoch)).isEqualTo(firstOrder);
    assertThat(plannedKinds(name, firstEpoch)).isEqualTo(firstOrder);
    assertConverged(node, layout);

    String bootBefore = node.gpus().bootId();
    node.reboot(); // nobody publishes anything after this

    long rebootEpoch = node.epoch();
    assertThat(rebootEpoch).isGreaterThan(firstEpoch);
    awaitApplied(name, rebootEpoch, 1);
    List<FleetEvent> afterBoot = log.payloads(name, rebootEpoch);
    assertThat(afterBoot)
        .contains(new NodeBooted(node.gpus().bootId(), bootBefore))
        .contains(new GateReleased(1));
    assertThat(afterBoot.indexOf(new NodeBooted(node.gpus().bootId(), bootBefore)))
        .isLessThan(afterBoot.indexOf(new GateReleased(1)));
    assertThat(succeededKinds(name, rebootEpoch)).isEqualTo(afterReboot);
    assertConverged(node, layout);
  }

  @Test
  void aCrashAfterAnyStepConvergesOnRestartWithoutRedoingAStepOrDuplicatingInstances() {
    String name = "vgpu-h200-1";
    SimulatedNode node = withVgpuLayoutApplied(name);
    int steps = plannedKinds(name, node.epoch()).size();
    assertThat(steps).isEqualTo(11);

    for (int step = 0; step < steps; step++) {
      int k = step;
      CRASH_AT.set(new CrashPoint(name, k));
      node.reboot();
      long crashedEpoch = node.epoch();
      await("crash after step " + k)
          .atMost(WAIT)
          .until(() -> CRASH_AT.get() == null && !node.agentRunning());

      node.restart();
      long restartEpoch = node.epoch();
      awaitApplied(name, restartEpoch, 1);

      List<PlannedStep> planned = planned(name, crashedEpoch);
      List<PlannedStep> done = succeeded(name, crashedEpoch);
      assertThat(done).as("steps done before the crash after step %d", k).hasSize(k + 1);
      assertThat(log.payloads(name, crashedEpoch))
          .noneMatch(e -> e instanceof StepStarted s && s.step().ordinal() > k)
          .noneMatch(e -> e instanceof SpecApplied);

      List<String> redone = new ArrayList<>(describe(planned(name, restartEpoch)));
      redone.retainAll(describe(done));
      assertThat(redone).as("steps repeated after the crash after step %d", k).isEmpty();
      List<String> together = new ArrayList<>(describe(done));
      together.addAll(describe(succeeded(name, restartEpoch)));
      assertThat(together).containsExactlyInAnyOrderElementsOf(describe(planned));
      assertThat(log.payloads(name, restartEpoch)).noneMatch(e -> e instanceof NodeBooted);
      assertConverged(node, H200_VGPU);
    }
  }

  @Test
  void aResetIsRefusedNamingAComputeProcessThenPersistencedAndAppliedOnceTheyGo() {
    String name = "ubuntu-a100-1";
    SimulatedNode node = fleet.node(name).orElseThrow();
    long pid = node.gpus().startProcess(0, "trainer");
    control.desired(spec(name, 1, A100_LAYOUT));

    StepFailed byProcess = awaitStepFailed(name, 1);
    assertThat(byProcess.step().kind()).isEqualTo(RESET_GPU);
    assertThat(byProcess.step().deadlineMillis()).isEqualTo(RESET_DEADLINE.toMillis());
    assertThat(byProcess.reason())
        .contains("trainer")
        .contains(Long.toString(pid))
        .contains("deadline");
    assertThat(byProcess.holder()).contains("trainer");
    assertThat(log.of(name, GateHeld.class).getLast().reason()).contains("trainer");
    assertThat(node.gpus().inventory().getFirst().instances()).isEmpty();

    node.gpus().stopProcess(0, pid); // the retry (bounded backoff) now succeeds
    awaitApplied(name, node.epoch(), 1);
    assertConverged(node, A100_LAYOUT);

    node.gpus().holdHandle(0, "nvidia-persistenced");
    GpuSpec migOff = new GpuSpec(0, false, Map.of(), 0, Map.of());
    control.desired(spec(name, 2, migOff));
    StepFailed byPersistenced = awaitStepFailed(name, 2);
    assertThat(byPersistenced.step().kind()).isEqualTo(RESET_GPU);
    assertThat(byPersistenced.holder()).isEqualTo("nvidia-persistenced");
    assertThat(byPersistenced.reason()).contains("nvidia-persistenced");

    node.gpus().releaseHandle(0, "nvidia-persistenced");
    awaitApplied(name, node.epoch(), 2);
    assertThat(node.gpus().inventory().getFirst().migMode()).isEqualTo(MigMode.DISABLED);
  }

  @Test
  void aResetCommandIsRefusedWhileVfsAreEnabledAndChangesNothing() {
    String name = "vgpu-h200-3";
    SimulatedNode node = withVgpuLayoutApplied(name);
    List<Gpu> before = node.gpus().inventory();

    Instant now = Instant.now();
    control.command(name, new ResetGpu(0, 1, now, now.plusSeconds(60)));

    StepFailed refused = awaitStepFailed(name, 1);
    assertThat(refused.step().kind()).isEqualTo(RESET_GPU);
    assertThat(refused.holder()).isEqualTo("4 SR-IOV VFs enabled");
    assertThat(node.gpus().inventory()).isEqualTo(before);

    control.command(name, new ResetGpu(5, 2, now, now.plusSeconds(60)));
    assertThat(awaitStepFailed(name, 2).reason()).contains("GPU 5").contains("no such GPU");
    assertThat(node.gpus().inventory()).isEqualTo(before);
  }

  /**
   * A MIG mode change left pending (set, never committed by a reset) on a GPU with VFs enabled: the
   * reset needs the VFs off (rule 2), and enabling them again wipes instances (rule 4). The bundled
   * H200 commits a mode at once, so this GPU is an H200 whose driver keeps the change pending until
   * a reset, as Ampere does; the agent plans from the GPU's state, not from the model.
   */
  @Test
  void aPendingModeWithVfsOnIsCommittedVfsOffResetVfsOnThenInstancesThenTypes() throws Exception {
    String name = "pending-h200-0";
    GpuModel h200 = GpuCatalog.bundled().find("0x233510DE").orElseThrow();
    GpuModel pendingUntilReset =
        new GpuModel(
            h200.pciDeviceIds(),
            h200.product(),
            h200.shortName(),
            h200.architecture(),
            h200.memoryMiB(),
            true,
            h200.migModeSurvivesReboot(),
            h200.minDriverVersion(),
            h200.sriovVfs(),
            h200.mig(),
            h200.vgpuTypes());
    SimulatedGpuBackend gpus =
        new SimulatedGpuBackend(name, "580.95.05", List.of(pendingUntilReset), true);
    gpus.setVfsEnabled(0, 4);
    gpus.setMigMode(0, true);
    assertThat(gpus.inventory().getFirst().migModePending()).isEqualTo(MigMode.ENABLED);
    assertThat(gpus.inventory().getFirst().migMode()).isEqualTo(MigMode.DISABLED);

    var facts =
        SimulatedHostFacts.of(
            FleetFile.parse(
                    """
                    nodes:
                      - {name-prefix: pending-h200, count: 1, host: vgpu-host,
                         driver-version: "580.95.05", gpus: [{model: H200, count: 1}]}
                    """,
                    "pending.yaml")
                .nodes()
                .getFirst());
    SpecFollowing following = SpecFollowing.of(signer.verifier());
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try (EventPublisher publisher =
            new EventPublisher(
                EventPublisher.Settings.of(kafka.bootstrapServers()).withTopic(EVENTS));
        CommandFollower follower =
            CommandFollower.start(
                CommandFollower.Settings.of(
                    kafka.bootstrapServers(), following, Duration.ofSeconds(10)),
                name::equals)) {
      NodeAgent agent =
          new NodeAgent(
              facts,
              gpus,
              gpus::bootId,
              publisher,
              scheduler,
              AgentSettings.of(Duration.ofMinutes(5), URI.create("fleetwave:it")),
              0);
      agent.start();
      SpecConverger converger =
          new SpecConverger(
              agent,
              gpus,
              new AgentGate(List.of()),
              BootRecord.inMemory(),
              ReplayFloor.none(),
              gpus::bootId,
              following,
              scheduler,
              scheduler);
      converger.start();
      follower.follow(converger);

      GpuSpec wanted = new GpuSpec(0, true, Map.of("7g.141gb", 1), 4, Map.of(0, "H200-7-141C"));
      control.desired(spec(name, 1, wanted));
      awaitApplied(name, agent.epoch(), 1);

      assertThat(succeededKinds(name, agent.epoch()))
          .containsExactly(
              StepKind.DISABLE_VFS,
              RESET_GPU,
              ENABLE_VFS,
              CREATE_INSTANCE,
              SET_VGPU_TYPE,
              RELEASE_GATE);
      Gpu gpu = gpus.inventory().getFirst();
      assertThat(gpu.migMode()).isEqualTo(MigMode.ENABLED);
      assertThat(gpu.vfsEnabled()).isEqualTo(4);
      assertThat(gpu.instances()).extracting(GpuInstance::profile).containsExactly("7g.141gb");
      assertThat(gpus.virtualFunctions(0).getFirst().currentVgpuTypeId()).isEqualTo(1104);
      agent.stop("test done").get(10, java.util.concurrent.TimeUnit.SECONDS);
      converger.stop();
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void talosConvergesWithNoSystemdAndNothingWrittenToTheHost() throws Exception {
    String name = "talos-h200-1";
    SimulatedNode node = fleet.node(name).orElseThrow();
    NodeRegistered facts = log.of(name, NodeRegistered.class).getFirst();
    assertThat(facts.systemd()).isFalse();
    assertThat(facts.readOnlyRoot()).isTrue();

    control.desired(spec(name, 1, H200_LAYOUT));
    awaitApplied(name, node.epoch(), 1);
    node.reboot();
    awaitApplied(name, node.epoch(), 1);

    assertConverged(node, H200_LAYOUT);
    assertThat(node.stateDirectory()).isEmpty();
    try (Stream<Path> written = Files.list(stateRoot)) {
      assertThat(written.map(p -> p.getFileName().toString())).doesNotContain(name);
    }
    // The gate is an event only here: held at boot, released once applied.
    assertThat(log.payloads(name, node.epoch()))
        .anyMatch(e -> e instanceof GateHeld h && h.reason().contains("booted"))
        .contains(new GateReleased(1));

    // A writable host of the same fleet does keep a gate file, naming the boot.
    SimulatedNode ubuntu = fleet.node("dc-h100-0").orElseThrow();
    control.desired(spec(ubuntu.name(), 5, H100_LAYOUT));
    awaitApplied(ubuntu.name(), ubuntu.epoch(), 5);
    Path gateFile = ubuntu.stateDirectory().orElseThrow().resolve(GateFile.NAME);
    assertThat(Files.readString(gateFile, StandardCharsets.UTF_8))
        .isEqualTo("boot-id=" + ubuntu.gpus().bootId() + "\n");
  }

  @Test
  void forgedUnsignedReplayedAndExpiredCommandsAreRejectedAndChangeNothing() {
    String name = "vgpu-h200-2";
    SimulatedNode node = withVgpuLayoutApplied(name);
    List<Gpu> before = node.gpus().inventory();
    List<VirtualFunction> vfsBefore = node.gpus().virtualFunctions(0);
    Instant now = Instant.now();
    GpuSpec other = new GpuSpec(0, true, Map.of("7g.141gb", 1), 0, Map.of());

    // Validly signed and fresh, but the generation the node accepted with other content: a
    // changed spec comes with a newer generation, so this is not the desired state read again.
    control.desired(spec(name, 1, other));
    awaitRejected(name, "replayed", 1);
    assertThat(log.of(name, SpecRejected.class).getLast().reason())
        .contains("already accepted with other content");

    CommandSigner impostor = CommandSigner.generate();
    control.send(
        Topics.NODE_DESIRED,
        impostor.sign(SignedCommands.unsigned(name, SignedCommands.apply(spec(name, 2, other)))));
    awaitRejected(name, "unknown-key", 2);
    CommandEnvelope claimingOurKey =
        impostor.sign(SignedCommands.unsigned(name, SignedCommands.apply(spec(name, 2, other))));
    control.send(
        Topics.NODE_DESIRED,
        claimingOurKey.withSignature(signer.kid(), claimingOurKey.signature()));
    awaitRejected(name, "forged", 2);

    control.send(
        Topics.NODE_DESIRED,
        SignedCommands.unsigned(name, SignedCommands.apply(spec(name, 3, other))));
    awaitRejected(name, "unsigned", 3);

    ApplyNodeSpec late =
        new ApplyNodeSpec(spec(name, 4, other), now.minusSeconds(7200), now.minusSeconds(3600));
    control.send(Topics.NODE_DESIRED, signer.sign(SignedCommands.unsigned(name, late)));
    awaitRejected(name, "expired", 4);

    control.command(name, new Reprobe(7, now, now.plusSeconds(600)));
    await().atMost(WAIT).until(() -> log.of(name, NodeRegistered.class).size() >= 2);
    control.command(name, new ResetGpu(0, 7, now, now.plusSeconds(600)));
    awaitRejected(name, "replayed", 7);
    control.command(name, new ResetGpu(0, 6, now, now.plusSeconds(600)));
    awaitRejected(name, "replayed", 6);
    control.command(name, new ResetGpu(0, 9, now.minusSeconds(7200), now.minusSeconds(3600)));
    awaitRejected(name, "expired", 9);

    // Signed and fresh, but impossible here: two 7g instances never fit one GPU.
    control.desired(spec(name, 10, new GpuSpec(0, true, Map.of("7g.141gb", 2), 0, Map.of())));
    awaitRejected(name, "unplannable", 10);
    assertThat(log.of(name, SpecRejected.class).getLast().reason())
        .contains("GPU 0")
        .contains("instances.7g.141gb");

    assertThat(node.gpus().inventory()).isEqualTo(before);
    assertThat(node.gpus().virtualFunctions(0)).isEqualTo(vfsBefore);
    List<FleetEvent> events = log.payloads(name, node.epoch());
    assertThat(events)
        .noneMatch(e -> e instanceof SpecAccepted a && a.generation() > 1 && a.generation() < 10)
        .noneMatch(e -> e instanceof SpecAccepted a && a.generation() == 10)
        .noneMatch(e -> e instanceof StepStarted s && s.generation() > 1);
    assertThat(events)
        .filteredOn(e -> e instanceof SpecAccepted a && a.generation() == 1)
        .hasSize(1);
    assertThat(log.of(name, SpecRejected.class))
        .allSatisfy(r -> assertThat(r.commandId()).isNotNull());
  }

  @Test
  void aMissingDesiredTopicFailsTheStartAtOnceNamingIt() {
    SpecFollowing missing =
        TestFleets.onTopics(signer.verifier(), "it.no-such-desired-topic", Topics.NODE_COMMANDS);
    long started = System.nanoTime();
    assertThatThrownBy(
            () ->
                SimulatedFleet.start(
                    FleetFile.parse(FLEET, "SpecFollowingIT"),
                    new SimulatedFleet.Settings(
                        kafka.bootstrapServers(),
                        Duration.ofMinutes(5),
                        EVENTS,
                        1,
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(2)),
                    missing,
                    null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("it.no-such-desired-topic")
        .hasMessageContaining(kafka.bootstrapServers());
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** The node, once it has applied generation 1 of the H200 vGPU layout. */
  private static SimulatedNode withVgpuLayoutApplied(String name) {
    SimulatedNode node = fleet.node(name).orElseThrow();
    control.desired(spec(name, 1, H200_VGPU));
    awaitApplied(name, node.epoch(), 1);
    return node;
  }

  private static void awaitApplied(String node, long epoch, long generation) {
    await("SpecApplied(" + generation + ") of " + node + " in epoch " + epoch)
        .atMost(WAIT)
        .until(() -> log.payloads(node, epoch).contains(new SpecApplied(generation)));
  }

  private static StepFailed awaitStepFailed(String node, long generation) {
    await("StepFailed(" + generation + ") of " + node)
        .atMost(WAIT)
        .until(
            () ->
                log.of(node, StepFailed.class).stream()
                    .anyMatch(f -> f.generation() == generation));
    return log.of(node, StepFailed.class).stream()
        .filter(f -> f.generation() == generation)
        .findFirst()
        .orElseThrow();
  }

  private static void awaitRejected(String node, String code, long generation) {
    await("SpecRejected(" + code + ", " + generation + ") of " + node)
        .atMost(WAIT)
        .until(
            () ->
                log.of(node, SpecRejected.class).stream()
                    .anyMatch(r -> r.code().equals(code) && r.generation() == generation));
  }

  private static List<PlannedStep> succeeded(String node, long epoch) {
    return log.payloads(node, epoch).stream()
        .filter(StepSucceeded.class::isInstance)
        .map(e -> ((StepSucceeded) e).step())
        .toList();
  }

  private static List<StepKind> succeededKinds(String node, long epoch) {
    return succeeded(node, epoch).stream().map(PlannedStep::kind).toList();
  }

  private static List<PlannedStep> planned(String node, long epoch) {
    return log.payloads(node, epoch).stream()
        .filter(SpecAccepted.class::isInstance)
        .map(e -> ((SpecAccepted) e).steps())
        .reduce((first, last) -> last)
        .orElse(List.of());
  }

  private static List<StepKind> plannedKinds(String node, long epoch) {
    return planned(node, epoch).stream().map(PlannedStep::kind).toList();
  }

  private static List<String> describe(List<PlannedStep> steps) {
    return steps.stream().map(s -> s.kind() + " " + s.gpu() + " " + s.detail()).toList();
  }

  /** The node's GPU 0 has exactly the layout, VFs and vGPU types, and its last report says so. */
  private static void assertConverged(SimulatedNode node, GpuSpec layout) {
    Gpu gpu = node.gpus().inventory().getFirst();
    assertThat(gpu.migMode()).isEqualTo(layout.migEnabled() ? MigMode.ENABLED : MigMode.DISABLED);
    List<String> profiles =
        new ArrayList<>(gpu.instances().stream().map(GpuInstance::profile).toList());
    List<String> wanted = new ArrayList<>();
    layout
        .instances()
        .forEach((profile, count) -> wanted.addAll(Collections.nCopies(count, profile)));
    assertThat(profiles).containsExactlyInAnyOrderElementsOf(wanted);
    assertThat(gpu.instances().stream().map(GpuInstance::placementStart).distinct())
        .hasSize(gpu.instances().size());
    assertThat(gpu.vfsEnabled()).isEqualTo(layout.vfs());
    if (layout.vfs() > 0) {
      Map<Integer, String> types = new java.util.TreeMap<>();
      for (VirtualFunction vf : node.gpus().virtualFunctions(0)) {
        if (vf.currentVgpuTypeId() != 0) {
          types.put(vf.index(), typeName(node, vf.currentVgpuTypeId()));
        }
      }
      assertThat(types).isEqualTo(layout.vgpuTypes());
    }
    await("inventory of " + node.name() + " reported")
        .atMost(WAIT)
        .until(
            () -> {
              List<GpuInventoryReported> reports = log.of(node.name(), GpuInventoryReported.class);
              return !reports.isEmpty() && reports.getLast().gpus().equals(node.gpus().inventory());
            });
  }

  private static String typeName(SimulatedNode node, int typeId) {
    return node.gpus().model(0).vgpuTypes().stream()
        .filter(t -> t.id() == typeId)
        .findFirst()
        .orElseThrow()
        .name();
  }
}
