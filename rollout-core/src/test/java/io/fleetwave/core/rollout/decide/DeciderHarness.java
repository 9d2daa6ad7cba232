package io.fleetwave.core.rollout.decide;

import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.core.rollout.plan.GpuBudget;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.core.rollout.plan.Quantity;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.rollout.FailureCause;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** Runs the engine's decision loop with the real decider against a fleet the test controls. */
public final class DeciderHarness {
  final UUID id = UUID.randomUUID();
  final RolloutRun run;
  final RolloutDecider decider;
  final RolloutRules rules;
  final List<RolloutEvent> log = new ArrayList<>();
  final Map<String, Observation> fleet = new HashMap<>();
  final Map<String, Long> generations = new HashMap<>();
  final List<OperatorRequest> requests = new ArrayList<>();
  final List<EffectReport> reports = new ArrayList<>();
  final List<String> refusals = new ArrayList<>();

  /** The nodes an admin revoked (the engine reads them each round). */
  final Set<String> revoked = new HashSet<>();

  int maxInFlight;
  Instant now = Instant.parse("2026-11-29T12:00:00Z");
  private long seq;

  DeciderHarness(List<List<String>> waves, RolloutRules rules) {
    this(waves, rules, Duration.ZERO);
  }

  /** With a drain: nodes must be taken out of service (within {@code drainBound}) first. */
  DeciderHarness(List<List<String>> waves, RolloutRules rules, Duration drainBound) {
    this.rules = rules;
    this.decider = new RolloutDecider(rules, drainBound);
    RolloutCreated created = new RolloutCreated("test", waves, null, null, "alice");
    log.add(created);
    this.run = RolloutRun.from(id, envelope(created));
  }

  public static RolloutRules rules(
      Map<String, String> zones,
      int maxUnavailable,
      Integer maxZones,
      String perWave,
      String total,
      FailureAction action,
      boolean manualPromotion,
      Duration soak) {
    return rules(
        zones,
        Map.of(),
        Map.of(),
        GpuBudget.NONE,
        maxUnavailable,
        maxZones,
        perWave,
        total,
        action,
        manualPromotion,
        soak);
  }

  /**
   * With a GPU budget: each node has its GPU count ({@code gpus}, 1 when absent) and its budgeted
   * label values ({@code labels}).
   */
  public static RolloutRules rules(
      Map<String, String> zones,
      Map<String, Integer> gpus,
      Map<String, Map<String, String>> labels,
      GpuBudget budget,
      int maxUnavailable,
      Integer maxZones,
      String perWave,
      String total,
      FailureAction action,
      boolean manualPromotion,
      Duration soak) {
    Map<String, NodePlan> plans = new LinkedHashMap<>();
    zones.forEach(
        (node, zone) ->
            plans.put(
                node,
                new NodePlan(
                    node,
                    HostKind.UBUNTU,
                    zone,
                    List.of(),
                    List.of(),
                    null,
                    false,
                    0,
                    null,
                    gpus.getOrDefault(node, 1),
                    labels.getOrDefault(node, Map.of()))));
    return new RolloutRules(
        maxUnavailable,
        maxZones,
        soak,
        Quantity.parse(perWave, "perWave", 0),
        Quantity.parse(total, "total", 0),
        action,
        manualPromotion,
        Duration.ofSeconds(600),
        null,
        plans,
        null,
        budget);
  }

  private Envelope<RolloutEvent> envelope(RolloutEvent event) {
    return Envelope.of(URI.create("test:engine"), id.toString(), now, 0, ++seq, event);
  }

  /**
   * Runs the engine's own loop ({@link DecisionLoop}) with the real decider until it has nothing
   * more to say: the log is this list, the desired specs are what earlier starts put there, and the
   * effects of a start are what sending its spec does to the desired specs.
   */
  void settle() {
    DecisionLoop.Settled settled =
        DecisionLoop.settle(
            run,
            decider,
            requests,
            (r, candidates, waiting) ->
                gathered(now, waiting, fleet, candidates, generations, reports, revoked),
            (r, events) -> {
              List<Envelope<RolloutEvent>> envelopes = new ArrayList<>();
              for (RolloutEvent event : events) {
                log.add(event);
                envelopes.add(envelope(event));
              }
              return envelopes;
            },
            (r, appended) -> {
              for (Envelope<RolloutEvent> envelope : appended) {
                if (envelope.data() instanceof NodeStarted started) {
                  generations.put(started.node(), started.generation());
                }
              }
              maxInFlight = Math.max(maxInFlight, run.inFlight().size());
            },
            1000);
    reports.clear();
    for (OperatorOutcome verdict : settled.verdicts()) {
      requests.removeIf(r -> r.id().equals(verdict.requestId()));
      if (verdict instanceof OperatorOutcome.Refused refused) {
        refusals.add(refused.reason());
      }
    }
    if (!decider.decide(run, input()).isEmpty()) {
      throw new AssertionError("the decider did not settle");
    }
  }

  /**
   * What the engine gathers for a round ({@link DecisionLoop.Gather}) from a simulated fleet: each
   * node as {@code fleet} shows it (nothing observed where it has none), and as desired specs those
   * the starts so far left on the candidates: each started node's spec at the generation its start
   * sent ({@code generations}), with nothing else to change (the decider only reads the
   * generation). The input copies the reports, so the caller may clear them after the round.
   */
  static DeciderInput gathered(
      Instant now,
      List<OperatorRequest> waiting,
      Map<String, Observation> fleet,
      Collection<String> candidates,
      Map<String, Long> generations,
      List<EffectReport> reports,
      Set<String> revoked) {
    Map<String, NodeSpec> desired = new HashMap<>();
    for (String node : candidates) {
      Long generation = generations.get(node);
      if (generation != null) {
        desired.put(node, new NodeSpec(node, generation, null, List.of(), GatePolicy.OPEN));
      }
    }
    return new DeciderInput(
        now, waiting, n -> fleet.getOrDefault(n, Observation.NONE), desired, reports, revoked);
  }

  private DeciderInput input() {
    return new DeciderInput(
        now, requests, n -> fleet.getOrDefault(n, Observation.NONE), Map.of(), List.of(), revoked);
  }

  /** Appends a report-derived event as the engine would after the decider recorded it. */
  private void append(RolloutEvent event) {
    log.add(event);
    run.apply(envelope(event));
  }

  /** Every in-flight node applies its generation. */
  void applyInFlight() {
    for (NodeRun node : run.inFlight()) {
      fleet.put(node.node(), new Observation(node.generation(), 0, null, null, null));
    }
  }

  /** The canary (wave 1) applied and the second wave started. */
  void throughCanary() {
    settle();
    applyInFlight();
    settle();
  }

  /** The drain reports the node out of service; the decider records it on the next settle. */
  void takeOutOfService(String node) {
    NodeRun current = run.nodeRun(node);
    reports.add(
        new EffectReport.TakenOutOfService(
            id,
            node,
            current.generation(),
            new NodeTakenOutOfService(
                node, current.phase(), true, false, List.of(), List.of(), null, null, 0)));
    settleReportsOnly();
  }

  /** The drain reports the node back in service; the decider records it on the next settle. */
  void returnToService(String node) {
    NodeRun current = run.nodeRun(node);
    reports.add(
        new EffectReport.ReturnedToService(
            id,
            node,
            current.generation(),
            new NodeReturnedToService(node, current.phase(), true, List.of(), null)));
  }

  /**
   * Records pending reports now (the engine does so at the start of its next round), without
   * letting time-dependent decisions run ahead of the test: only the reports' own events.
   */
  private void settleReportsOnly() {
    Decision decision =
        decider.decide(
            run,
            new DeciderInput(
                now, List.of(), n -> Observation.NONE, Map.of(), List.copyOf(reports)));
    reports.clear();
    decision.events().forEach(this::append);
  }

  void refuse(String node, String reason) {
    long generation = run.nodeRun(node).generation();
    fleet.put(
        node,
        new Observation(
            0, generation, new FailureCause.AgentRefused(generation, "test", reason), null, null));
  }

  /** Runs until nothing is in flight and nothing more starts, applying every spec. */
  void runAllApplying() {
    for (int i = 0; i < 10_000; i++) {
      settle();
      if (run.inFlight().isEmpty()) {
        return;
      }
      applyInFlight();
    }
  }

  void request(OperatorRequest.Action action) {
    requests.add(
        new OperatorRequest(
            new UUID(0, requests.size() + 1000L + log.size()), action, "test", "alice"));
  }

  List<String> started(Phase phase) {
    return log.stream()
        .filter(e -> e instanceof NodeStarted s && s.phase() == phase)
        .map(e -> ((NodeStarted) e).node())
        .toList();
  }
}
