package io.fleetwave.core.rollout.plan;

import java.io.Serial;
import java.util.List;
import java.util.stream.Collectors;

/** A rollout request was refused (HTTP 422); carries every problem found. */
public final class RolloutSpecException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final transient List<RolloutSpecProblem> problems;

  public RolloutSpecException(List<RolloutSpecProblem> problems) {
    super(
        problems.stream()
            .map(RolloutSpecProblem::toString)
            .collect(Collectors.joining("; ", "invalid rollout: ", "")));
    this.problems = List.copyOf(problems);
  }

  public List<RolloutSpecProblem> problems() {
    return problems;
  }
}
