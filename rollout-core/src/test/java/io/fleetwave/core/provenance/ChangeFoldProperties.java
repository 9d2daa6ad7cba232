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
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The fold finds the same changes however the log is cut into batches: the live projection and a
 * rebuild cut it differently. Cut in two, the second batch's boots are applied to the first's
 * changes as the projection's UPDATE does (same node and epoch, before the NodeBooted, no step, no
 * boot yet).
 */
class ChangeFoldProperties {
  private static final PlannedStep[] STEPS = {
    new PlannedStep(0, StepKind.SET_MIG_MODE, 0, "MIG on GPU 0", 1000),
    new PlannedStep(1, StepKind.SET_MIG_MODE, 1, "MIG on GPU 1", 1000),
    new PlannedStep(2, StepKind.RESET_GPU, 0, "reset GPU 0", 1000),
  };

  @Provide
  Arbitrary<List<Integer>> kinds() {
    return Arbitraries.integers().between(0, 8).list().ofMinSize(1).ofMaxSize(40);
  }

  /** A node's log from event kinds: new runs (epochs) start with reports, boots follow them. */
  private static List<Envelope<NodeEvent>> log(List<Integer> kinds) {
    List<Envelope<NodeEvent>> log = new ArrayList<>();
    long epoch = 1;
    long seq = 0;
    long generation = 1;
    int boots = 0;
    for (int kind : kinds) {
      NodeEvent event =
          switch (kind) {
            case 0 -> Events.registered("n", HostKind.UBUNTU, "58" + (seq % 3), Map.of());
            case 1, 2 -> inventory(seq % 2 == 0 ? MigMode.ENABLED : MigMode.DISABLED, seq % 5 == 0);
            case 3 -> new SpecAccepted(++generation, List.of(STEPS[(int) (seq % 3)]));
            case 4 -> new StepStarted(generation, STEPS[(int) (seq % 3)]);
            case 5 -> new StepSucceeded(generation, STEPS[(int) (seq % 3)], 5);
            case 6 -> new SpecApplied(generation);
            case 7 -> new NodeBooted("boot-" + ++boots, null);
            default -> {
              epoch++; // a new agent run: it reports first
              seq = 0;
              yield inventory(MigMode.DISABLED, false);
            }
          };
      log.add(Events.envelope("n", epoch, seq++, event));
    }
    return log;
  }

  private static GpuInventoryReported inventory(MigMode gpu0, boolean failed) {
    return new GpuInventoryReported(
        List.of(
            Events.gpu(0, Events.H100, gpu0),
            GpuBuilder.from(Events.gpu(1, Events.H100, MigMode.DISABLED))
                .health(failed ? GpuHealth.FAILED : GpuHealth.HEALTHY)
                .build()));
  }

  @Property(tries = 1000)
  void cuttingTheLogIntoTwoBatchesFindsTheSameChanges(
      @ForAll("kinds") List<Integer> kinds, @ForAll @IntRange(min = 0, max = 40) int cut) {
    List<Envelope<NodeEvent>> log = log(kinds);
    int at = Math.min(cut, log.size());

    ChangeFold.Result whole = ChangeFold.fold(Map.of(), log);
    ChangeFold.Result first = ChangeFold.fold(Map.of(), log.subList(0, at));
    ChangeFold.Result second = ChangeFold.fold(first.nodes(), log.subList(at, log.size()));

    List<ObservedChange> cut1 = new ArrayList<>(first.changes());
    for (ChangeFold.BootSeen boot : second.boots()) {
      cut1.replaceAll(
          c ->
              c.node().equals(boot.node())
                      && c.epoch() == boot.epoch()
                      && c.seq() < boot.seq()
                      && c.stepGeneration() == null
                      && c.bootId() == null
                  ? c.withBoot(boot.bootId())
                  : c);
    }
    cut1.addAll(second.changes());
    assertThat(cut1).isEqualTo(whole.changes());
    NodeProvenance end = second.nodes().getOrDefault("n", first.nodes().get("n"));
    assertThat(end).isEqualTo(whole.nodes().get("n"));
  }

  @Property(tries = 200)
  void aLogWithoutAnyStepOrBootIsAllOutsideFleetwave(
      @ForAll @Size(min = 1, max = 30) List<@IntRange(min = 0, max = 2) Integer> kinds) {
    for (ObservedChange change : ChangeFold.fold(Map.of(), log(kinds)).changes()) {
      assertThat(ChangeAttribution.attribute(change, java.util.OptionalLong.empty()).cause())
          .isEqualTo(ChangeCause.OUTSIDE);
    }
  }

  /**
   * The runs the fold keeps are what the drift view used to work out from the whole change history
   * (every change read back, the boots' marks applied): per aspect but health, the changes after
   * its last one a step made or, but for the driver, a boot came with.
   */
  @Property(tries = 1000)
  void theUnexplainedRunsAreTheChangesAfterTheLastOneAStepOrABootExplains(
      @ForAll("kinds") List<Integer> kinds) {
    ChangeFold.Result whole = ChangeFold.fold(Map.of(), log(kinds));

    Map<AspectKey, NodeProvenance.UnexplainedRun> expected = new TreeMap<>();
    whole.changes().stream()
        .map(ObservedChange::key)
        .filter(key -> key.aspect() != Aspect.HEALTH)
        .distinct()
        .forEach(
            key -> {
              List<ObservedChange> ofKey =
                  whole.changes().stream().filter(c -> c.key().equals(key)).toList();
              int lastExplained = -1;
              for (int i = 0; i < ofKey.size(); i++) {
                ObservedChange c = ofKey.get(i);
                if (c.stepGeneration() != null
                    || (c.bootId() != null && key.aspect() != Aspect.DRIVER)) {
                  lastExplained = i;
                }
              }
              if (lastExplained < ofKey.size() - 1) {
                ObservedChange first = ofKey.get(lastExplained + 1);
                ObservedChange last = ofKey.getLast();
                expected.put(
                    key,
                    new NodeProvenance.UnexplainedRun(
                        first.epoch(),
                        first.seq(),
                        first.time(),
                        first.before(),
                        last.after(),
                        last.epoch()));
              }
            });
    NodeProvenance end = whole.nodes().getOrDefault("n", NodeProvenance.NONE);
    assertThat(end.unexplained()).isEqualTo(expected);
  }
}
