package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.rollout.FailureCause;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RestorePoint;
import java.time.Instant;

/** One planned node of a rollout, as folded from the rollout's events. Mutated only by the fold. */
public final class NodeRun {
  private final String node;
  private final int wave;
  private final int order;
  private Phase phase = Phase.FORWARD;
  private NodeState state = NodeState.PENDING;
  private NodeState forwardOutcome;
  private long generation;
  private Instant startedAt;
  private Instant finishedAt;
  private FailureCause cause;
  private String skipped;
  private RestorePoint restore;
  // The driver request logged for this start (DriverInstallRequested or OsUpgradeRequested).
  private DriverRequest driverRequest;
  private Instant outOfServiceAt;
  private boolean released;
  private boolean forwardOutOfService;
  private String migConfigBefore;

  NodeRun(String node, int wave, int order) {
    this.node = node;
    this.wave = wave;
    this.order = order;
  }

  void start(Phase phase, long generation, RestorePoint restore, Instant at) {
    if (phase == Phase.ROLLBACK) {
      forwardOutcome = state;
      forwardOutOfService = outOfServiceAt != null;
    } else {
      this.restore = restore;
      this.forwardOutOfService = false;
      this.migConfigBefore = null;
    }
    this.phase = phase;
    this.state = NodeState.IN_FLIGHT;
    this.generation = generation;
    this.startedAt = at;
    this.finishedAt = null;
    this.cause = null;
    this.driverRequest = null;
    this.outOfServiceAt = null;
    this.released = false;
  }

  void outOfService(String migConfigBefore, Instant at) {
    this.outOfServiceAt = at;
    if (phase == Phase.FORWARD) {
      this.migConfigBefore = migConfigBefore;
    }
  }

  void released() {
    this.released = true;
  }

  void finish(NodeState outcome, FailureCause cause, Instant at) {
    this.state = outcome;
    this.cause = cause;
    this.finishedAt = at;
  }

  /**
   * Left out of the rollout: a pending node is never started; a node whose forward change finished
   * is left out of the rollback (it ends in the rollback phase, skipped, its forward result kept).
   */
  void skip(String reason, Instant at) {
    boolean awaitingRollback = phase == Phase.FORWARD && touched() && state.finished();
    if (state != NodeState.PENDING && !awaitingRollback) {
      throw new IllegalStateException(
          "node "
              + node
              + " is "
              + state.wireName()
              + " in the "
              + phase.wireName()
              + " phase; only a pending node or one awaiting its rollback can be skipped");
    }
    if (awaitingRollback) {
      forwardOutcome = state;
      forwardOutOfService = outOfServiceAt != null;
      phase = Phase.ROLLBACK;
    }
    this.state = NodeState.SKIPPED;
    this.skipped = reason;
    this.finishedAt = at;
  }

  void driverRequested(DriverRequest request) {
    this.driverRequest = request;
  }

  public String node() {
    return node;
  }

  /** 1-based wave. */
  public int wave() {
    return wave;
  }

  /** Position in the plan, across waves. */
  public int order() {
    return order;
  }

  public Phase phase() {
    return phase;
  }

  public NodeState state() {
    return state;
  }

  /** Whether the rollout ever sent this node its change. */
  public boolean touched() {
    return restore != null;
  }

  /** The forward result of a node that is being (or was) rolled back, else null. */
  public NodeState forwardOutcome() {
    return forwardOutcome;
  }

  public long generation() {
    return generation;
  }

  public Instant startedAt() {
    return startedAt;
  }

  public Instant finishedAt() {
    return finishedAt;
  }

  /** Why it failed in this phase, or null. */
  public FailureCause cause() {
    return cause;
  }

  /** Why it failed in this phase (or why it was skipped), in words, or null. */
  public String reason() {
    return cause != null ? cause.describe() : skipped;
  }

  public RestorePoint restore() {
    return restore;
  }

  public boolean isDriverRequested() {
    return driverRequest != null;
  }

  /**
   * The driver change logged for this start, which its effect hands to the executor as logged; null
   * when the start changes no driver.
   */
  public DriverRequest driverRequest() {
    return driverRequest;
  }

  /** A logged driver change: the executor's idempotency key and the version the node must reach. */
  public record DriverRequest(String requestId, String driverVersion) {}

  public boolean inFlight() {
    return state == NodeState.IN_FLIGHT;
  }

  /** Whether the node was taken out of service in this phase (always false without a drain). */
  public boolean outOfService() {
    return outOfServiceAt != null;
  }

  /** When it was taken out of service in this phase, or null. */
  public Instant outOfServiceAt() {
    return outOfServiceAt;
  }

  /** Finished, but not yet back in service (or kept out after a failure): still unavailable. */
  public boolean releasePending() {
    return state.finished() && outOfServiceAt != null && !released;
  }

  /** For a rollback: whether its forward change took it out of service. */
  public boolean forwardOutOfService() {
    return forwardOutOfService;
  }

  /** The {@code nvidia.com/mig.config} it had before the forward change, or null. */
  public String migConfigBefore() {
    return migConfigBefore;
  }
}
