package io.fleetwave.core.provenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ChangeFoldTest {
  private static final PlannedStep MIG_ON_0 =
      new PlannedStep(0, StepKind.SET_MIG_MODE, 0, "enable MIG", 1000);

  private long seq;

  private Envelope<NodeEvent> event(NodeEvent data) {
    return Events.envelope("n", 1, seq++, data);
  }

  private Envelope<NodeEvent> registered(String driver) {
    return event(Events.registered("n", HostKind.UBUNTU, driver, Map.of()));
  }

  private Envelope<NodeEvent> inventory(MigMode mode) {
    return event(Events.inventory(Events.H100, 2, mode));
  }

  private List<Envelope<NodeEvent>> baseline() {
    return new ArrayList<>(List.of(registered("580.65.06"), inventory(MigMode.DISABLED)));
  }

  /** The baseline, then generation 7 accepted and its step turning MIG on at GPU 0 succeeded. */
  private List<Envelope<NodeEvent>> afterTheMigOnStep() {
    List<Envelope<NodeEvent>> events = baseline();
    events.add(event(new SpecAccepted(7, List.of(MIG_ON_0))));
    events.add(event(new StepStarted(7, MIG_ON_0)));
    events.add(event(new StepSucceeded(7, MIG_ON_0, 40)));
    return events;
  }

  @Test
  void aNodesFirstReportsAreItsBaselineNotChanges() {
    ChangeFold.Result result = ChangeFold.fold(Map.of(), baseline());

    assertThat(result.changes()).isEmpty();
    NodeProvenance node = result.nodes().get("n");
    assertThat(node.driverSeen()).isTrue();
    assertThat(node.gpusSeen()).isTrue();
    assertThat(node.observation().values())
        .containsEntry(AspectKey.DRIVER, "580.65.06")
        .containsEntry(new AspectKey(Aspect.MIG_MODE, 1), "disabled")
        .containsEntry(new AspectKey(Aspect.VFS, 0), "0");
  }

  @Test
  void aChangeNoStepMadeAndNoBootCameWithIsAttributedToNothingFleetwaveAskedFor() {
    List<Envelope<NodeEvent>> events = baseline();
    events.add(inventory(MigMode.ENABLED));

    List<ObservedChange> changes = ChangeFold.fold(Map.of(), events).changes();

    assertThat(changes)
        .extracting(c -> c.key().text() + ": " + c.before() + " -> " + c.after())
        .containsExactly(
            "0/mig-mode: disabled -> enabled",
            "0/mig-layout:  -> 3g.40gb@0+3g.40gb@4",
            "1/mig-mode: disabled -> enabled",
            "1/mig-layout:  -> 3g.40gb@0+3g.40gb@4");
    ObservedChange first = changes.getFirst();
    assertThat(first.stepGeneration()).isNull();
    assertThat(first.bootId()).isNull();
    assertThat(first.seq()).isEqualTo(2);
    assertThat(first.time()).isEqualTo(events.getLast().time());
    assertThat(ChangeAttribution.attribute(first, OptionalLong.empty()).cause())
        .isEqualTo(ChangeCause.OUTSIDE);
  }

  @Test
  void aChangeOfTheAspectAStepOfTheSameGpuChangesIsThatGenerations() {
    List<Envelope<NodeEvent>> events = afterTheMigOnStep();
    events.add(event(new SpecApplied(7)));
    // The inventory after the step may come after SpecApplied: it is still the step's.
    events.add(inventory(MigMode.ENABLED));

    List<ObservedChange> changes = ChangeFold.fold(Map.of(), events).changes();

    assertThat(changes.stream().filter(c -> c.key().gpu() == 0))
        .allSatisfy(c -> assertThat(c.stepGeneration()).isEqualTo(7L));
    // GPU 1 was in no step of generation 7: someone else changed it.
    assertThat(changes.stream().filter(c -> c.key().gpu() == 1))
        .isNotEmpty()
        .allSatisfy(c -> assertThat(c.stepGeneration()).isNull())
        .allSatisfy(c -> assertThat(c.acceptedGeneration()).isEqualTo(7));
  }

  @Test
  void aStepCountsOnlyUntilTheInventoryThatShowsItSoALaterHandChangeIsDrift() {
    List<Envelope<NodeEvent>> events = afterTheMigOnStep();
    events.add(inventory(MigMode.ENABLED));
    events.add(event(new SpecApplied(7)));
    events.add(inventory(MigMode.DISABLED));

    List<ObservedChange> changes = ChangeFold.fold(Map.of(), events).changes();

    ObservedChange byHand =
        changes.stream()
            .filter(c -> c.key().equals(new AspectKey(Aspect.MIG_MODE, 0)))
            .reduce((a, b) -> b)
            .orElseThrow();
    assertThat(byHand.after()).isEqualTo("disabled");
    assertThat(byHand.stepGeneration()).isNull();
  }

  @Test
  void aStepStillRunningAtAnInventoryStillCountsForTheNext() {
    List<Envelope<NodeEvent>> events = baseline();
    events.add(event(new StepStarted(3, MIG_ON_0)));
    events.add(inventory(MigMode.DISABLED));
    events.add(inventory(MigMode.ENABLED));

    List<ObservedChange> changes = ChangeFold.fold(Map.of(), events).changes();

    assertThat(changes.stream().filter(c -> c.key().gpu() == 0))
        .isNotEmpty()
        .allSatisfy(c -> assertThat(c.stepGeneration()).isEqualTo(3L));
  }

  @Test
  void whatARunReportsBeforeItsNodeBootedCameWithThatBootAndWhatComesAfterDidNot() {
    List<Envelope<NodeEvent>> events = baseline();
    // A new agent run (epoch 2) reports first, then finds the boot id changed.
    events.add(Events.envelope("n", 2, 0, Events.inventory(Events.H100, 2, MigMode.ENABLED)));
    events.add(Events.envelope("n", 2, 1, new NodeBooted("boot-2", "boot-1")));
    events.add(Events.envelope("n", 2, 2, failedGpus()));

    ChangeFold.Result result = ChangeFold.fold(Map.of(), events);

    assertThat(result.changes().stream().filter(c -> c.seq() == 0))
        .isNotEmpty()
        .allSatisfy(c -> assertThat(c.bootId()).isEqualTo("boot-2"));
    assertThat(result.changes().stream().filter(c -> c.seq() == 2))
        .extracting(c -> c.key().text() + " " + c.bootId())
        .contains("0/health null", "1/health null");
    assertThat(result.boots()).containsExactly(new ChangeFold.BootSeen("n", 2, 1, "boot-2"));
  }

  @Test
  void aBootOfAnotherRunSaysNothingOfTheChangesBeforeIt() {
    List<Envelope<NodeEvent>> events = baseline();
    events.add(inventory(MigMode.ENABLED)); // epoch 1, by hand
    events.add(Events.envelope("n", 2, 0, new NodeBooted("boot-2", "boot-1")));

    assertThat(ChangeFold.fold(Map.of(), events).changes())
        .isNotEmpty()
        .allSatisfy(c -> assertThat(c.bootId()).isNull());
  }

  private static GpuInventoryReported failedGpus() {
    return new GpuInventoryReported(
        Events.inventory(Events.H100, 2, MigMode.ENABLED).gpus().stream()
            .map(g -> GpuBuilder.from(g).health(GpuHealth.FAILED).build())
            .toList());
  }

  @Test
  void aDriverChangeIsSeenInTheNextRegistrationAndTheStateCarriesOverBetweenBatches() {
    ChangeFold.Result first = ChangeFold.fold(Map.of(), baseline());
    List<Envelope<NodeEvent>> next =
        List.of(
            Events.envelope("n", 2, 0, Events.registered("n", HostKind.UBUNTU, "590.10", Map.of())),
            Events.envelope("n", 2, 1, new NodeBooted("boot-2", "boot-1")));

    List<ObservedChange> changes = ChangeFold.fold(first.nodes(), next).changes();

    assertThat(changes)
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.key()).isEqualTo(AspectKey.DRIVER);
              assertThat(c.before()).isEqualTo("580.65.06");
              assertThat(c.after()).isEqualTo("590.10");
              assertThat(c.bootId()).isEqualTo("boot-2");
            });
    // A driver a spec asked for is that spec's, whatever the boot; one nobody asked for is drift.
    assertThat(ChangeAttribution.attribute(changes.getFirst(), OptionalLong.of(4)))
        .isEqualTo(new ChangeAttribution.Attribution(ChangeCause.SPEC, 4L));
    assertThat(ChangeAttribution.attribute(changes.getFirst(), OptionalLong.empty()).cause())
        .isEqualTo(ChangeCause.OUTSIDE);
  }

  @Test
  void aBatchThatChangesNothingReportsNoNode() {
    ChangeFold.Result first = ChangeFold.fold(Map.of(), baseline());

    ChangeFold.Result again =
        ChangeFold.fold(
            first.nodes(), List.of(inventory(MigMode.DISABLED), event(Events.heartbeat(3))));

    assertThat(again.nodes()).isEmpty();
    assertThat(again.changes()).isEmpty();
  }
}
