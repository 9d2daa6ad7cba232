package io.fleetwave.bench;

import io.fleetwave.core.rollout.decide.DeciderInput;
import io.fleetwave.core.rollout.decide.Decision;
import io.fleetwave.core.rollout.decide.NodeRun;
import io.fleetwave.core.rollout.decide.Observation;
import io.fleetwave.core.rollout.decide.RolloutDecider;
import io.fleetwave.core.rollout.decide.RolloutRules;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.core.rollout.decide.RunStatus;
import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.core.rollout.plan.GpuBudget;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.core.rollout.plan.Quantity;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The rollout decider's step on a {@code nodes}-node rollout in its second wave, with {@code
 * maxUnavailable} nodes in flight, as the engine calls it on every tick and every fleet change:
 * {@code idleTick} (no node has a result yet: the decision is to wait, the common case) and {@code
 * oneNodeApplied} (one in-flight node has applied its spec: the decision records it). Baseline of
 * the same run: the decider on the same rollout once completed (its fixed cost, no node looked at).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RolloutDeciderBench {
  private static final Instant NOW = Instant.parse("2026-12-01T00:00:00Z");

  @Param({"1000"})
  public int nodes;

  @Param({"50"})
  public int maxUnavailable;

  private RolloutDecider decider;
  private RolloutRun midWave;
  private RolloutRun completed;
  private DeciderInput idle;
  private DeciderInput oneApplied;
  private long seq;

  @Setup
  public void driveToTheSecondWave() {
    List<String> names = new ArrayList<>();
    Map<String, NodePlan> plans = new LinkedHashMap<>();
    for (int i = 0; i < nodes; i++) {
      String name = String.format("gpu-node-%04d", i);
      names.add(name);
      plans.put(
          name,
          new NodePlan(
              name,
              HostKind.UBUNTU,
              "zone-" + (i % 4),
              List.of(),
              List.of(),
              null,
              false,
              0,
              null,
              0,
              Map.of()));
    }
    int canary = Math.max(1, nodes / 100);
    List<List<String>> waves =
        List.of(
            names.subList(0, canary),
            names.subList(canary, nodes / 3),
            names.subList(nodes / 3, nodes));
    RolloutRules rules =
        new RolloutRules(
            maxUnavailable,
            null,
            Duration.ZERO,
            new Quantity.Count(0),
            new Quantity.Percent(100),
            FailureAction.PAUSE,
            false,
            Duration.ofSeconds(600),
            null,
            plans,
            null,
            GpuBudget.NONE);
    decider = new RolloutDecider(rules);

    Map<String, Observation> fleet = new HashMap<>();
    midWave = created(waves);
    settle(midWave, fleet);
    applyInFlight(midWave, fleet);
    settle(midWave, fleet);
    if (midWave.inFlight().size() != maxUnavailable) {
      throw new IllegalStateException(
          "expected " + maxUnavailable + " nodes in flight, got " + midWave.inFlight().size());
    }
    Map<String, Observation> frozen = Map.copyOf(fleet);
    idle = input(n -> frozen.getOrDefault(n, Observation.NONE));
    NodeRun first = midWave.inFlight().getFirst();
    Map<String, Observation> withOne = new HashMap<>(fleet);
    withOne.put(first.node(), new Observation(first.generation(), 0, null, null, null));
    Map<String, Observation> frozenWithOne = Map.copyOf(withOne);
    oneApplied = input(n -> frozenWithOne.getOrDefault(n, Observation.NONE));

    Map<String, Observation> all = new HashMap<>();
    completed = created(waves);
    for (int round = 0; round <= nodes && completed.status() != RunStatus.COMPLETED; round++) {
      settle(completed, all);
      applyInFlight(completed, all);
    }
    settle(completed, all);
    // Each benchmark must take the path it is named for.
    if (completed.status() != RunStatus.COMPLETED
        || !decider.decide(midWave, idle).isEmpty()
        || decider.decide(midWave, oneApplied).isEmpty()) {
      throw new IllegalStateException("the rollout did not reach the states the benchmark needs");
    }
  }

  private RolloutRun created(List<List<String>> waves) {
    return RolloutRun.from(
        UUID.randomUUID(), envelope(new RolloutCreated("bench", waves, null, null, "bench")));
  }

  private Envelope<RolloutEvent> envelope(RolloutEvent event) {
    return Envelope.of(URI.create("bench:engine"), "bench", NOW, 0, ++seq, event);
  }

  private static DeciderInput input(Function<String, Observation> fleet) {
    return new DeciderInput(NOW, List.of(), fleet, Map.of(), List.of());
  }

  /** Appends what the decider decides until it decides nothing, as the engine's loop does. */
  private void settle(RolloutRun run, Map<String, Observation> fleet) {
    for (int step = 0; step < 10 * nodes; step++) {
      Decision decision = decider.decide(run, input(n -> fleet.getOrDefault(n, Observation.NONE)));
      if (decision.isEmpty()) {
        return;
      }
      for (RolloutEvent event : decision.events()) {
        run.apply(envelope(event));
      }
    }
    throw new IllegalStateException("the decider did not settle");
  }

  private static void applyInFlight(RolloutRun run, Map<String, Observation> fleet) {
    for (NodeRun node : run.inFlight()) {
      fleet.put(node.node(), new Observation(node.generation(), 0, null, null, null));
    }
  }

  @Benchmark
  public Decision idleTick() {
    return decider.decide(midWave, idle);
  }

  @Benchmark
  public Decision oneNodeApplied() {
    return decider.decide(midWave, oneApplied);
  }

  /** Baseline: the same rollout, completed. */
  @Benchmark
  public Decision baselineCompleted() {
    return decider.decide(completed, idle);
  }
}
