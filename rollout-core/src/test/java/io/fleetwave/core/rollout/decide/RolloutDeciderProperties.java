package io.fleetwave.core.rollout.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.core.rollout.plan.GpuBudget;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.FailureCause;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import java.io.Serial;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The engine's decision loop ({@link DecisionLoop}) with the real decider over random fleets, node
 * outcomes, operator requests at random moments and crashes at random appends (the events are in
 * the log, nothing after them happened; a new engine folds the log and carries out the effects of
 * its in-flight starts again): every node starts at most once per phase, never more nodes are
 * unavailable than maxUnavailable nor in more zones than maxZonesInFlight, never more GPUs than the
 * GPU budget overall nor of any one team (random GPU counts and team labels), and every run ends.
 */
class RolloutDeciderProperties {
  private static final Duration TIMEOUT = Duration.ofSeconds(600);
  private static final Duration DRAIN = Duration.ofSeconds(60);

  enum Outcome {
    APPLY,
    REFUSE,
    SILENT
  }

  record Request(int atRound, OperatorRequest.Action action) {}

  /**
   * Each node's GPUs and team (absent: no team label), and the budget: null bounds are absent.
   * Bounds are at least 8, the most GPUs of a node: the planner refuses a node that alone exceeds
   * them.
   */
  record Gpus(
      Map<String, Integer> gpus, Map<String, String> teams, Integer maxGpus, Integer maxPerTeam) {
    GpuBudget budget() {
      return new GpuBudget(maxGpus, maxPerTeam == null ? Map.of() : Map.of("team", maxPerTeam));
    }

    Map<String, Map<String, String>> labels() {
      Map<String, Map<String, String>> out = new HashMap<>();
      teams.forEach((node, team) -> out.put(node, Map.of("team", team)));
      return out;
    }
  }

  record Scenario(
      List<List<String>> waves,
      Map<String, String> zones,
      int maxUnavailable,
      Integer maxZones,
      String perWave,
      FailureAction action,
      boolean manualPromotion,
      boolean drain,
      Map<String, Outcome> forward,
      Map<String, Outcome> back,
      List<Request> requests,
      Set<Integer> crashAtAppend,
      Gpus gpus) {}

  @Property(tries = 300)
  void everyNodeStartsAtMostOncePerPhaseWithinTheLimitsAndEveryRunEnds(
      @ForAll("scenarios") Scenario s) {
    Simulation sim = new Simulation(s);

    sim.run();

    Statistics.label("took over after a crash").collect(sim.takeOvers > 0);
    Statistics.label("ended").collect(sim.run.status());
    Statistics.label("GPU budget").collect(s.gpus().budget().bounded());
    Statistics.label("took over after a crash")
        .coverage(c -> c.check(true).percentage(p -> p >= 20));
    Statistics.label("GPU budget").coverage(c -> c.check(true).percentage(p -> p >= 25));
    Statistics.label("ended").coverage(c -> c.check(RunStatus.ROLLED_BACK).count(n -> n > 0));
    assertThat(sim.run.status().active()).as("the run ended: %s", sim.run.status()).isFalse();
    Map<String, Integer> starts = new HashMap<>();
    for (Envelope<RolloutEvent> e : sim.log) {
      if (e.data() instanceof NodeStarted started) {
        starts.merge(started.node() + "/" + started.phase(), 1, Integer::sum);
      }
    }
    assertThat(starts).allSatisfy((nodeAndPhase, count) -> assertThat(count).isOne());
    if (sim.run.status() == RunStatus.COMPLETED) {
      assertThat(starts.keySet())
          .as("a completed rollout started every planned node forward")
          .containsAll(s.zones().keySet().stream().map(n -> n + "/" + Phase.FORWARD).toList());
    }
    assertLimitsHoldAfterEveryEvent(s, sim.log);
  }

  /**
   * The run's indexed views (in flight, waiting for release, failure counts, each wave's nodes not
   * started and whether it is settled) against walks over its planned nodes, after every event of
   * random runs (rollbacks, drains, resumes, takeovers), with every event applied twice (the
   * duplicate changes nothing).
   */
  @Property(tries = 200)
  void theIndexedViewsOfARunAreThoseOfAWalkOverItsNodes(@ForAll("scenarios") Scenario s) {
    Simulation sim = new Simulation(s);
    sim.run();

    RolloutRun replay = RolloutRun.from(Simulation.ID, sim.log.getFirst());
    for (Envelope<RolloutEvent> e : sim.log) {
      replay.apply(e);
      replay.apply(e);
      List<NodeRun> all = List.copyOf(replay.nodes());
      assertThat(replay.inFlight())
          .as("in flight after seq %d (%s)", e.seq(), e.data())
          .containsExactlyElementsOf(all.stream().filter(NodeRun::inFlight).toList());
      assertThat(replay.releasePending())
          .as("waiting for release after seq %d (%s)", e.seq(), e.data())
          .containsExactlyElementsOf(all.stream().filter(NodeRun::releasePending).toList());
      for (int wave = 1; wave <= replay.waveCount(); wave++) {
        int w = wave;
        List<NodeRun> ofWave = all.stream().filter(n -> n.wave() == w).toList();
        assertThat(replay.pending(wave))
            .as("not started in wave %d after seq %d (%s)", wave, e.seq(), e.data())
            .containsExactlyElementsOf(
                ofWave.stream().filter(n -> n.state() == NodeState.PENDING).toList());
        assertThat(replay.waveSettled(wave))
            .as("wave %d settled after seq %d (%s)", wave, e.seq(), e.data())
            .isEqualTo(ofWave.stream().allMatch(n -> n.state().finished() && !n.releasePending()));
      }
      for (Phase phase : Phase.values()) {
        for (int wave = 0; wave <= replay.waveCount(); wave++) {
          assertThat(replay.failed(phase, wave))
              .as("%s failures in wave %d after seq %d (%s)", phase, wave, e.seq(), e.data())
              .isEqualTo(failedByWalk(all, phase, wave));
        }
      }
    }
  }

  private static int failedByWalk(List<NodeRun> nodes, Phase phase, int wave) {
    return (int)
        nodes.stream()
            .filter(n -> wave == 0 || n.wave() == wave)
            .filter(
                n ->
                    phase == Phase.FORWARD
                        ? (n.phase() == Phase.FORWARD
                            ? n.state() == NodeState.FAILED
                            : n.forwardOutcome() == NodeState.FAILED)
                        : n.phase() == Phase.ROLLBACK && n.state() == NodeState.FAILED)
            .count();
  }

  /** Folds the log event by event: what is unavailable never exceeds the limits. */
  private static void assertLimitsHoldAfterEveryEvent(
      Scenario s, List<Envelope<RolloutEvent>> log) {
    RolloutRun replay = RolloutRun.from(Simulation.ID, log.getFirst());
    for (Envelope<RolloutEvent> e : log) {
      replay.apply(e);
      List<NodeRun> unavailable = new ArrayList<>(replay.inFlight());
      unavailable.addAll(replay.releasePending());
      assertThat(unavailable.size())
          .as("unavailable after seq %d (%s)", e.seq(), e.data())
          .isLessThanOrEqualTo(s.maxUnavailable());
      if (s.maxZones() != null) {
        assertThat(unavailable.stream().map(n -> s.zones().get(n.node())).distinct().count())
            .as("zones in flight after seq %d", e.seq())
            .isLessThanOrEqualTo(s.maxZones());
      }
      Map<String, Integer> byTeam = new HashMap<>();
      int gpus = 0;
      for (NodeRun node : unavailable) {
        int own = s.gpus().gpus().get(node.node());
        gpus += own;
        String team = s.gpus().teams().get(node.node());
        if (team != null) {
          byTeam.merge(team, own, Integer::sum);
        }
      }
      if (s.gpus().maxGpus() != null) {
        assertThat(gpus)
            .as("GPUs offline after seq %d (%s)", e.seq(), e.data())
            .isLessThanOrEqualTo(s.gpus().maxGpus());
      }
      if (s.gpus().maxPerTeam() != null) {
        assertThat(byTeam)
            .as("GPUs offline per team after seq %d (%s)", e.seq(), e.data())
            .allSatisfy((team, n) -> assertThat(n).isLessThanOrEqualTo(s.gpus().maxPerTeam()));
      }
    }
  }

  /** The engine's loop against a simulated fleet, drain and operator, crashing where asked. */
  private static final class Simulation {
    static final UUID ID = UUID.fromString("5e1f0000-0000-4000-8000-0000000000aa");

    final Scenario s;
    final RolloutDecider decider;
    final List<Envelope<RolloutEvent>> log = new ArrayList<>();
    final Map<String, Long> desired = new HashMap<>();
    final Map<String, Observation> fleet = new HashMap<>();
    final List<EffectReport> reports = new ArrayList<>();
    final List<OperatorRequest> requests = new ArrayList<>();
    RolloutRun run;
    Instant now = Instant.parse("2026-11-29T12:00:00Z");
    int appends;
    int takeOvers;
    long requestIds;

    Simulation(Scenario s) {
      this.s = s;
      this.decider =
          new RolloutDecider(
              DeciderHarness.rules(
                  s.zones(),
                  s.gpus().gpus(),
                  s.gpus().labels(),
                  s.gpus().budget(),
                  s.maxUnavailable(),
                  s.maxZones(),
                  s.perWave(),
                  "100%",
                  s.action(),
                  s.manualPromotion(),
                  Duration.ZERO),
              s.drain() ? DRAIN : Duration.ZERO);
      append(List.of(new RolloutCreated("property", s.waves(), null, null, "alice")));
      run = RolloutRun.from(ID, log.getFirst());
    }

    void run() {
      for (int round = 0; round < 2_000; round++) {
        for (Request request : s.requests()) {
          if (request.atRound() == round) {
            requests.add(
                new OperatorRequest(new UUID(0, ++requestIds), request.action(), "why", "op"));
          }
        }
        int before = log.size();
        try {
          settle();
        } catch (Crash crash) {
          takeOver();
          continue;
        }
        if (!run.status().active()) {
          return;
        }
        answer();
        if (log.size() == before && reports.isEmpty()) {
          if (run.status() == RunStatus.PAUSED && requests.isEmpty()) {
            // An operator looks at a paused rollout: resume it, or promote a held wave.
            requests.add(
                new OperatorRequest(
                    new UUID(0, ++requestIds), OperatorRequest.Action.RESUME, null, "op"));
          } else if (decider.awaitingPromotion(run) && requests.isEmpty()) {
            requests.add(
                new OperatorRequest(
                    new UUID(0, ++requestIds), OperatorRequest.Action.PROMOTE, null, "op"));
          } else {
            now = now.plus(TIMEOUT).plus(DRAIN).plusSeconds(1);
          }
        }
      }
    }

    private void settle() {
      List<EffectReport> reported = List.copyOf(reports);
      reports.clear();
      DecisionLoop.Settled settled =
          DecisionLoop.settle(
              run,
              decider,
              requests,
              (r, candidates, waiting) ->
                  DeciderHarness.gathered(
                      now, waiting, fleet, candidates, desired, reported, Set.of()),
              (r, events) -> {
                List<Envelope<RolloutEvent>> envelopes = append(events);
                if (s.crashAtAppend().contains(appends)) {
                  throw new Crash();
                }
                return envelopes;
              },
              (r, appended) -> appended.forEach(e -> effectOf(r, e.data())),
              64);
      for (OperatorOutcome verdict : settled.verdicts()) {
        requests.removeIf(r -> r.id().equals(verdict.requestId()));
      }
    }

    private List<Envelope<RolloutEvent>> append(List<RolloutEvent> events) {
      appends++;
      List<Envelope<RolloutEvent>> out = new ArrayList<>();
      for (RolloutEvent event : events) {
        Envelope<RolloutEvent> envelope =
            Envelope.of(URI.create("test:sim"), ID.toString(), now, 0, log.size() + 1, event);
        log.add(envelope);
        out.add(envelope);
      }
      return out;
    }

    /**
     * What carrying out an appended event does, by the engine's own dispatch ({@link Effect#of}):
     * specs sent, nodes drained and released.
     */
    private void effectOf(RolloutRun r, RolloutEvent event) {
      switch (Effect.of(event)) {
        case Effect.Start started -> start(r.nodeRun(started.node()));
        case Effect.Release released -> release(r.nodeRun(released.node()));
        // Spec sent once out of service: the simulated fleet reads it from the desired generation.
        case Effect.HandOver _ -> {}
        // The simulated drain leaves nothing to undo.
        case Effect.Abandon _ -> {}
        case Effect.None _ -> {}
      }
    }

    private void start(NodeRun node) {
      desired.put(node.node(), node.generation());
      if (s.drain() && !node.outOfService()) {
        reports.add(
            new EffectReport.TakenOutOfService(
                ID,
                node.node(),
                node.generation(),
                new NodeTakenOutOfService(
                    node.node(), node.phase(), true, false, List.of(), List.of(), null, null, 1)));
      }
    }

    private void release(NodeRun node) {
      if (!node.releasePending()) {
        return;
      }
      reports.add(
          node.state() == NodeState.SUCCEEDED
              ? new EffectReport.ReturnedToService(
                  ID,
                  node.node(),
                  node.generation(),
                  new NodeReturnedToService(node.node(), node.phase(), true, List.of(), null))
              : new EffectReport.KeptOutOfService(
                  ID,
                  node.node(),
                  node.generation(),
                  new NodeKeptOutOfService(node.node(), node.phase(), List.of(), "failed")));
    }

    /** A new engine: folds the log as it is, then the effects of its in-flight starts again. */
    private void takeOver() {
      takeOvers++;
      run = RolloutRun.from(ID, log.getFirst());
      log.forEach(run::apply);
      reports.clear();
      run.inFlight().forEach(this::start);
      run.releasePending().forEach(this::release);
    }

    /** In-flight nodes answer as the scenario says, for their phase and current generation. */
    private void answer() {
      for (NodeRun node : run.inFlight()) {
        Outcome outcome = (node.phase() == Phase.FORWARD ? s.forward() : s.back()).get(node.node());
        long generation = node.generation();
        switch (outcome) {
          case APPLY -> fleet.put(node.node(), new Observation(generation, 0, null, null, null));
          case REFUSE ->
              fleet.put(
                  node.node(),
                  new Observation(
                      0,
                      generation,
                      new FailureCause.AgentRefused(generation, "unplannable", "no"),
                      null,
                      null));
          case SILENT -> {}
        }
      }
    }
  }

  /** The engine stops right after Kafka acknowledged an append. */
  private static final class Crash extends RuntimeException {
    @Serial private static final long serialVersionUID = 1L;
  }

  /** One value of {@code values} for each node, in the nodes' order. */
  private static <T> Arbitrary<Map<String, T>> perNode(List<String> nodes, Arbitrary<T> values) {
    return values
        .list()
        .ofSize(nodes.size())
        .map(
            drawn -> {
              Map<String, T> byNode = new LinkedHashMap<>();
              for (int i = 0; i < nodes.size(); i++) {
                byNode.put(nodes.get(i), drawn.get(i));
              }
              return byNode;
            });
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Integer> sizes = Arbitraries.integers().between(1, 12);
    return sizes.flatMap(
        n -> {
          List<String> nodes = new ArrayList<>();
          for (int i = 1; i <= n; i++) {
            nodes.add("n" + i);
          }
          Arbitrary<List<Integer>> cuts =
              Arbitraries.integers().between(1, Math.max(1, n - 1)).list().ofMaxSize(3);
          Arbitrary<Map<String, String>> zones = perNode(nodes, Arbitraries.of("a", "b", "c"));
          Arbitrary<Map<String, Outcome>> outcomes = perNode(nodes, Arbitraries.of(Outcome.class));
          Arbitrary<List<Request>> requests =
              Combinators.combine(
                      Arbitraries.integers().between(0, 30),
                      Arbitraries.of(OperatorRequest.Action.class))
                  .as(Request::new)
                  .list()
                  .ofMaxSize(4);
          Arbitrary<Set<Integer>> crashes =
              Arbitraries.integers().between(1, 80).set().ofMaxSize(4);
          Arbitrary<Gpus> gpus =
              Combinators.combine(
                      Arbitraries.integers().between(1, 8).list().ofSize(n),
                      Arbitraries.of("search", "vision").injectNull(0.3).list().ofSize(n),
                      Arbitraries.integers().between(8, 20).injectNull(0.4),
                      Arbitraries.integers().between(8, 12).injectNull(0.4))
                  .as(
                      (counts, teams, maxGpus, maxPerTeam) -> {
                        Map<String, Integer> byNode = new HashMap<>();
                        Map<String, String> teamOf = new HashMap<>();
                        for (int i = 0; i < n; i++) {
                          byNode.put(nodes.get(i), counts.get(i));
                          if (teams.get(i) != null) {
                            teamOf.put(nodes.get(i), teams.get(i));
                          }
                        }
                        return new Gpus(byNode, teamOf, maxGpus, maxPerTeam);
                      });
          return Combinators.combine(
                  cuts,
                  zones,
                  Arbitraries.integers().between(1, 4),
                  Arbitraries.of(1, 2).injectNull(0.5),
                  Arbitraries.of("0", "1", "50%"),
                  Arbitraries.of(FailureAction.class),
                  Arbitraries.of(true, false),
                  Arbitraries.of(true, false))
              .flatAs(
                  (c, z, maxUnavailable, maxZones, perWave, action, manual, drain) ->
                      Combinators.combine(outcomes, outcomes, requests, crashes, gpus)
                          .as(
                              (forward, back, r, crash, g) ->
                                  new Scenario(
                                      waves(nodes, c),
                                      z,
                                      maxUnavailable,
                                      maxZones,
                                      perWave,
                                      action,
                                      manual,
                                      drain,
                                      forward,
                                      back,
                                      r,
                                      crash,
                                      g)));
        });
  }

  /** A canary of one node, then the rest cut at the given points. */
  private static List<List<String>> waves(List<String> nodes, List<Integer> cuts) {
    Set<Integer> at = new HashSet<>(cuts);
    at.add(1);
    List<List<String>> waves = new ArrayList<>();
    List<String> current = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      if (at.contains(i) && !current.isEmpty()) {
        waves.add(current);
        current = new ArrayList<>();
      }
      current.add(nodes.get(i));
    }
    waves.add(current);
    return waves;
  }
}
