package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.DriverInstallRequested;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeSkipped;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeSucceeded;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.OsUpgradeRequested;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RollbackStarted;
import io.fleetwave.events.rollout.RolloutAborted;
import io.fleetwave.events.rollout.RolloutCompleted;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutCreatedInChunks;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutFailed;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.RolloutPlanChunk;
import io.fleetwave.events.rollout.RolloutResumed;
import io.fleetwave.events.rollout.WaveCompleted;
import io.fleetwave.events.rollout.WavePromoted;
import io.fleetwave.events.rollout.WaveStarted;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * One rollout folded from its events: the only state the engine decides on. Events are applied in
 * seq order exactly once; an event at or below the applied seq is a duplicate and changes nothing.
 *
 * <p>Each event carries the term of the engine leader that appended it (the envelope's epoch; 0
 * before terms existed). A leader's term only grows, so an event from a term lower than one already
 * applied comes from a leader that had lost its lease (an append it had in flight) and is ignored.
 * {@link RolloutFold} reads a whole log this way, the engine taking over and the rebuild alike.
 *
 * <p>An event the run cannot apply (a node it does not plan, a wave it does not have, a second
 * creation) is refused with an {@link IllegalStateException} and changes nothing; {@link
 * RolloutFold} turns that into the rollout's failure.
 */
public final class RolloutRun {
  private final UUID id;
  private final String name;
  private final List<List<String>> waves;
  private final RolloutCreated created;
  private final long createdSeq;
  private final Map<String, NodeRun> nodes = new LinkedHashMap<>();
  private final Map<Integer, Instant> waveCompletedAt = new HashMap<>();
  private final Set<Integer> promoted = new HashSet<>();
  private final Map<Integer, Integer> acceptedFailuresByWave = new HashMap<>();
  private final Set<String> changed = new HashSet<>();
  private final RunIndex index = new RunIndex();
  private long seq;
  private long term;
  private RunStatus status = RunStatus.RUNNING;
  private String statusReason;
  private int currentWave;
  private int acceptedFailures;

  private RolloutRun(UUID id, String name, RolloutCreated created, long createdSeq) {
    this.id = id;
    this.name = name;
    this.created = created;
    this.createdSeq = createdSeq;
    this.waves = created == null ? List.of() : created.waves();
    int order = 0;
    for (int w = 0; w < waves.size(); w++) {
      for (String node : waves.get(w)) {
        NodeRun run = new NodeRun(node, w + 1, order++);
        NodeRun earlier = nodes.put(node, run);
        if (earlier != null) {
          index.remove(earlier);
        }
        index.add(run);
      }
    }
  }

  /** A run from its first event, which must be RolloutCreated. */
  public static RolloutRun from(UUID id, Envelope<? extends RolloutEvent> first) {
    if (!(first.data() instanceof RolloutCreated created)) {
      throw new IllegalArgumentException(
          "rollout " + id + " starts with " + first.type() + ", not RolloutCreated");
    }
    return created(id, created, first.seq(), first.epoch());
  }

  /**
   * A run from its creation, logged as one record or joined from chunks ending at {@code seq}, by
   * the leader of {@code term}.
   */
  public static RolloutRun created(UUID id, RolloutCreated created, long seq, long term) {
    RolloutRun run = new RolloutRun(id, created.name(), created, seq);
    run.seq = seq;
    run.term = term;
    run.changed.addAll(run.nodes.keySet());
    return run;
  }

  /**
   * A rollout whose creation cannot be folded (it does not decode, or another event came first): it
   * plans no node, and only its {@link RolloutFailed} is applied to it.
   */
  public static RolloutRun uncreated(UUID id) {
    return new RolloutRun(id, id.toString(), null, 0);
  }

  /**
   * Applies the next event; false for a duplicate (already applied) or for an event from a term
   * lower than one applied (a leader that no longer led).
   */
  public boolean apply(Envelope<? extends RolloutEvent> envelope) {
    if (envelope.seq() <= seq || envelope.epoch() < term) {
      return false;
    }
    if (created == null && !(envelope.data() instanceof RolloutFailed)) {
      throw new IllegalStateException(
          envelope.type() + " for rollout " + id + ", whose creation is not in the log");
    }
    Instant at = envelope.time();
    switch (envelope.data()) {
      case RolloutCreated again -> throw createdTwice(envelope);
      case RolloutCreatedInChunks again -> throw createdTwice(envelope);
      case RolloutPlanChunk chunk -> throw createdTwice(envelope);
      case RolloutFailed failed -> status(RunStatus.FAILED, failed.describe());
      case WaveStarted started -> currentWave = plannedWave(started.wave());
      case NodeStarted started ->
          change(
              started.node(),
              n -> n.start(started.phase(), started.generation(), started.restore(), at));
      case NodeSucceeded done -> change(done.node(), n -> n.finish(NodeState.SUCCEEDED, null, at));
      case NodeFailed failed ->
          change(failed.node(), n -> n.finish(NodeState.FAILED, failed.cause(), at));
      case NodeSkipped skipped -> change(skipped.node(), n -> n.skip(skipped.reason(), at));
      case WaveCompleted completed -> waveCompletedAt.put(completed.wave(), at);
      case WavePromoted promotedWave -> promoted.add(promotedWave.wave());
      case RolloutPaused paused -> status(RunStatus.PAUSED, paused.reason());
      case RolloutResumed resumed -> {
        status(RunStatus.RUNNING, null);
        acceptedFailures = failed(Phase.FORWARD, 0);
        for (int w = 1; w <= waves.size(); w++) {
          acceptedFailuresByWave.put(w, failed(Phase.FORWARD, w));
        }
      }
      case RolloutAborted aborted -> status(RunStatus.ABORTED, aborted.reason());
      case RollbackStarted rollback -> status(RunStatus.ROLLING_BACK, rollback.reason());
      case RolloutCompleted completed ->
          status(
              completed.rolledBack() ? RunStatus.ROLLED_BACK : RunStatus.COMPLETED, statusReason);
      case DriverInstallRequested requested ->
          change(
              requested.node(),
              n ->
                  n.driverRequested(
                      new NodeRun.DriverRequest(requested.requestId(), requested.driverVersion())));
      case OsUpgradeRequested requested ->
          change(
              requested.node(),
              n ->
                  n.driverRequested(
                      new NodeRun.DriverRequest(requested.requestId(), requested.driverVersion())));
      case NodeTakenOutOfService out ->
          change(out.node(), n -> n.outOfService(out.migConfigBefore(), at));
      case NodeReturnedToService back -> change(back.node(), NodeRun::released);
      case NodeKeptOutOfService kept -> change(kept.node(), NodeRun::released);
    }
    seq = envelope.seq();
    term = envelope.epoch();
    return true;
  }

  private IllegalStateException createdTwice(Envelope<? extends RolloutEvent> envelope) {
    return new IllegalStateException(
        envelope.type()
            + " at seq "
            + envelope.seq()
            + ": rollout "
            + id
            + " was created at seq "
            + createdSeq);
  }

  private int plannedWave(int number) {
    if (number < 1 || number > waves.size()) {
      throw new IllegalStateException(
          "rollout " + id + " has waves 1 to " + waves.size() + ", not wave " + number);
    }
    return number;
  }

  private void status(RunStatus next, String reason) {
    status = next;
    statusReason = reason;
  }

  /**
   * Changes one planned node, keeping the {@link RunIndex} in step: the node leaves the index as it
   * was and enters it as it is now, so the index never needs a walk over the whole plan.
   */
  private void change(String name, Consumer<NodeRun> mutation) {
    NodeRun node = nodes.get(name);
    if (node == null) {
      throw new IllegalStateException("rollout " + id + " has no planned node '" + name + "'");
    }
    changed.add(name);
    index.remove(node);
    mutation.accept(node);
    index.add(node);
  }

  public UUID id() {
    return id;
  }

  public String name() {
    return name;
  }

  /**
   * How the rollout was created (its request and plan joined from chunks where it was logged in
   * chunks); null for a rollout whose creation is not in the log ({@link #uncreated}).
   */
  public RolloutCreated created() {
    return created;
  }

  /** The seq of the creation's last record (its RolloutCreated or last chunk). */
  public long createdSeq() {
    return createdSeq;
  }

  public long seq() {
    return seq;
  }

  /** The term of the leader that appended the last applied event. */
  public long term() {
    return term;
  }

  public RunStatus status() {
    return status;
  }

  /** Why it is paused, rolling back, aborted or rolled back; null otherwise. */
  public String statusReason() {
    return statusReason;
  }

  /** The newest started wave (1-based), 0 before the first. */
  public int currentWave() {
    return currentWave;
  }

  public int waveCount() {
    return waves.size();
  }

  public List<String> wave(int number) {
    return waves.get(number - 1);
  }

  public NodeRun nodeRun(String name) {
    return nodes.get(name);
  }

  public Collection<NodeRun> nodes() {
    return nodes.values();
  }

  public int plannedNodes() {
    return nodes.size();
  }

  public boolean waveCompleted(int wave) {
    return waveCompletedAt.containsKey(wave);
  }

  public Instant waveCompletedAt(int wave) {
    return waveCompletedAt.get(wave);
  }

  public boolean promoted(int wave) {
    return promoted.contains(wave);
  }

  /**
   * Nodes that finished but are not yet back in service (see {@link NodeRun#releasePending}), in
   * plan order.
   */
  public List<NodeRun> releasePending() {
    return index.releasePending();
  }

  /** The wave's nodes not yet started, in plan order (a view: read it before the run changes). */
  public Collection<NodeRun> pending(int wave) {
    return index.pending(wave);
  }

  /**
   * Whether every node of the wave finished and none of them still waits to be back in service (or
   * kept out): what completes a wave.
   */
  public boolean waveSettled(int wave) {
    return index.waveSettled(wave);
  }

  /** Nodes in flight, in plan order. */
  public List<NodeRun> inFlight() {
    return index.inFlight();
  }

  /** Failed nodes of a phase, in one wave or (wave 0) in all. */
  public int failed(Phase phase, int wave) {
    return index.failed(phase, wave);
  }

  /** Forward failures accepted by the latest resume, in one wave or (wave 0) in all. */
  public int acceptedFailures(int wave) {
    return wave == 0 ? acceptedFailures : acceptedFailuresByWave.getOrDefault(wave, 0);
  }

  /** The nodes whose state changed since the last call (for the projection). */
  public Set<String> drainChanged() {
    Set<String> out = Set.copyOf(changed);
    changed.clear();
    return out;
  }
}
