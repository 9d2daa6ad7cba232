package io.fleetwave.core.mig;

/**
 * One thing wrong with a mig-parted file.
 *
 * @param line 1-based line in the file (0 when unknown)
 * @param field the path of the offending field, e.g. {@code mig-configs.all-balanced[2].devices}
 * @param message what is wrong, naming the model and profile where one is involved
 */
public record MigConfigProblem(int line, String field, String message) {
  @Override
  public String toString() {
    return "line " + line + (field.isEmpty() ? "" : ", " + field) + ": " + message;
  }
}
