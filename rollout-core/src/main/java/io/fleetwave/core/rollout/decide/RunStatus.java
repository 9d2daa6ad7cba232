package io.fleetwave.core.rollout.decide;

/** The status of a rollout as folded from its events. */
public enum RunStatus {
  RUNNING(RolloutState.RUNNING),
  PAUSED(RolloutState.PAUSED),
  ROLLING_BACK(RolloutState.ROLLING_BACK),
  COMPLETED(RolloutState.COMPLETED),
  ABORTED(RolloutState.ABORTED),
  ROLLED_BACK(RolloutState.ROLLED_BACK),
  /** A record of its log could not be folded (RolloutFailed): stopped for good. */
  FAILED(RolloutState.FAILED);

  private final RolloutState state;

  RunStatus(RolloutState state) {
    this.state = state;
  }

  public RolloutState state() {
    return state;
  }

  public boolean active() {
    return state.active();
  }
}
