package io.fleetwave.core.rollout.decide;

/**
 * An operator's request on a rollout, waiting for the engine (table rollout_requests).
 *
 * @param actor who asked (the token subject), recorded in the event the request becomes
 */
public record OperatorRequest(long id, Action action, String reason, String actor) {

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
