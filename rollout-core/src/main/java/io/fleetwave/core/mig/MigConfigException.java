package io.fleetwave.core.mig;

import java.io.Serial;
import java.util.List;
import java.util.stream.Collectors;

/** A mig-parted file was refused; carries every problem found, each with its line and field. */
public final class MigConfigException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final transient List<MigConfigProblem> problems;

  public MigConfigException(List<MigConfigProblem> problems) {
    super(
        problems.stream()
            .map(MigConfigProblem::toString)
            .collect(Collectors.joining("; ", "invalid mig-parted configuration: ", "")));
    this.problems = List.copyOf(problems);
  }

  public List<MigConfigProblem> problems() {
    return problems;
  }
}
