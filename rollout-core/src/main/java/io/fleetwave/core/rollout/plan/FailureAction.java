package io.fleetwave.core.rollout.plan;

/** What a rollout does when a failure threshold is crossed. */
public enum FailureAction {
  PAUSE("pause"),
  ROLLBACK("rollback");

  private final String wireName;

  FailureAction(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public static FailureAction fromWireName(String name) {
    for (FailureAction action : values()) {
      if (action.wireName.equals(name)) {
        return action;
      }
    }
    throw new IllegalArgumentException(
        "unknown failure action '" + name + "', expected pause or rollback");
  }
}
