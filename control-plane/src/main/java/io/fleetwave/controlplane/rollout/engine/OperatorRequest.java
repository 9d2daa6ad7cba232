package io.fleetwave.controlplane.rollout.engine;

/** An operator's request on a rollout, waiting for the engine (table rollout_requests). */
public record OperatorRequest(long id, Action action, String reason) {

  public enum Action {
    PAUSE,
    RESUME,
    ABORT,
    ROLLBACK,
    PROMOTE;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Action fromWireName(String name) {
      return valueOf(name.toUpperCase(java.util.Locale.ROOT));
    }
  }
}
