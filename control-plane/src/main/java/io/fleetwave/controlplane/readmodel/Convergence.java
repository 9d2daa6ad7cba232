package io.fleetwave.controlplane.readmodel;

import io.fleetwave.core.projection.ReconcileState;
import java.util.Locale;

/**
 * Whether a node has converged to its desired spec and, if not, why: pure, from the desired
 * generation (null when the node never got a spec) and the node's reconcile state.
 *
 * @param converged the agent applied the desired generation and nothing failed since
 * @param reason why not, for people; null when converged
 */
public record Convergence(boolean converged, String reason) {

  public static Convergence of(Long desiredGeneration, ReconcileState state) {
    ReconcileState s = state == null ? ReconcileState.NONE : state;
    long desired = desiredGeneration == null ? 0 : desiredGeneration;
    ReconcileState.Failure failure = s.failure();
    if (failure != null && failure.generation() >= Math.max(desired, s.appliedGeneration())) {
      return new Convergence(false, failed(failure));
    }
    ReconcileState.Rejected rejection = s.rejection();
    if (desired > s.appliedGeneration()
        && rejection != null
        && (rejection.generation() >= desired || rejection.generation() == 0)) {
      return new Convergence(
          false,
          "spec rejected: "
              + rejection.code().toUpperCase(Locale.ROOT)
              + " (generation "
              + rejection.generation()
              + "): "
              + rejection.reason());
    }
    if (s.bootPending()) {
      return new Convergence(
          false,
          "node booted (boot id "
              + s.bootId()
              + ") and has not re-applied generation "
              + s.appliedGeneration()
              + " yet");
    }
    if (desired > s.appliedGeneration()) {
      String progress =
          s.acceptedGeneration() >= desired
              ? "; generation " + s.acceptedGeneration() + " accepted, being applied"
              : "";
      return new Convergence(
          false,
          "desired generation " + desired + ", agent applied " + s.appliedGeneration() + progress);
    }
    return new Convergence(true, null);
  }

  private static String failed(ReconcileState.Failure failure) {
    return "step "
        + failure.kind().wireName()
        + (failure.gpu() == null ? "" : " on GPU " + failure.gpu())
        + " of generation "
        + failure.generation()
        + " failed: "
        + failure.reason()
        + (failure.holder() == null ? "" : " (held by " + failure.holder() + ")");
  }
}
