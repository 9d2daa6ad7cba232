package io.fleetwave.core.rollout.plan;

/** One thing wrong with a rollout request: the JSON path of the field and what is wrong. */
public record RolloutSpecProblem(String field, String message) {
  @Override
  public String toString() {
    return field + ": " + message;
  }
}
