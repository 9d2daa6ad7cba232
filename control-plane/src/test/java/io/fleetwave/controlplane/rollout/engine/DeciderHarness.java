package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.rollout.plan.FailureAction;
import io.fleetwave.controlplane.rollout.plan.NodePlan;
import io.fleetwave.controlplane.rollout.plan.Quantity;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RestorePoint;
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

/** Runs the decider the way the engine does, against a fleet the test controls. */
final class DeciderHarness {
  final UUID id = UUID.randomUUID();
  final RolloutRun run;
  final RolloutDecider decider;
  final RolloutRules rules;
  final List<RolloutEvent> log = new ArrayList<>();
  final Map<String, Observation> fleet = new HashMap<>();
  final Map<String, Long> generations = new HashMap<>();
  final List<OperatorRequest> requests = new ArrayList<>();
  final List<String> refusals = new ArrayList<>();
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
    RolloutCreated created = new RolloutCreated("test", waves);
    log.add(created);
    this.run = RolloutRun.from(id, envelope(created));
  }

  static RolloutRules rules(
      Map<String, String> zones,
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
                new NodePlan(node, HostKind.UBUNTU, zone, List.of(), List.of(), null, false, 0)));
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
        null);
  }

  private Envelope<RolloutEvent> envelope(RolloutEvent event) {
    return Envelope.of(URI.create("test:engine"), id.toString(), now, 0, ++seq, event);
  }

  /** Decides and folds until the decider has nothing more to say. */
  void settle() {
    for (int i = 0; i < 1000; i++) {
      List<Decision> decisions =
          decider.decide(run, requests, n -> fleet.getOrDefault(n, Observation.NONE), now);
      if (decisions.isEmpty()) {
        return;
      }
      for (Decision decision : decisions) {
        switch (decision) {
          case Decision.Append append -> append(append.event());
          case Decision.Start start -> {
            long generation = generations.merge(start.node(), 1L, Long::sum);
            RestorePoint restore =
                start.phase() == Phase.FORWARD ? new RestorePoint(null, List.of()) : null;
            append(new NodeStarted(start.wave(), start.node(), start.phase(), generation, restore));
          }
          case Decision.Handled handled -> requests.removeIf(r -> r.id() == handled.requestId());
          case Decision.Refuse refuse -> {
            refusals.add(refuse.reason());
            requests.removeIf(r -> r.id() == refuse.requestId());
          }
        }
      }
      maxInFlight = Math.max(maxInFlight, run.inFlight().size());
    }
    throw new AssertionError("the decider did not settle");
  }

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

  /** The drain reports the node out of service. */
  void takeOutOfService(String node) {
    append(
        new NodeTakenOutOfService(
            node, run.nodeRun(node).phase(), true, false, List.of(), List.of(), null, null, 0));
  }

  /** The drain reports the node back in service. */
  void returnToService(String node) {
    append(new NodeReturnedToService(node, run.nodeRun(node).phase(), true, List.of(), null));
  }

  void refuse(String node, String reason) {
    long generation = run.nodeRun(node).generation();
    fleet.put(node, new Observation(0, generation, reason, null, null));
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
    requests.add(new OperatorRequest(requests.size() + 1000L + log.size(), action, "test"));
  }

  List<String> started(Phase phase) {
    return log.stream()
        .filter(e -> e instanceof NodeStarted s && s.phase() == phase)
        .map(e -> ((NodeStarted) e).node())
        .toList();
  }
}
