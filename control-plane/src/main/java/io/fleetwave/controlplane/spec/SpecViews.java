package io.fleetwave.controlplane.spec;

import io.fleetwave.controlplane.readmodel.Convergence;
import io.fleetwave.controlplane.readmodel.NodeView;
import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.events.spec.NodeSpec;
import java.util.List;

/** Builds {@link SpecView}s; pure. */
final class SpecViews {
  private SpecViews() {}

  static SpecView of(
      String node, NodeSpec desired, List<NodeView.GpuView> observed, ReconcileState state) {
    ReconcileState s = state == null ? ReconcileState.NONE : state;
    Convergence convergence = Convergence.of(desired == null ? null : desired.generation(), s);
    return new SpecView(
        node,
        desired == null ? null : new SpecView.Desired(desired.generation(), desired),
        observed,
        reconcile(s),
        convergence.converged(),
        convergence.reason());
  }

  private static SpecView.Reconcile reconcile(ReconcileState s) {
    ReconcileState.Failure f = s.failure();
    ReconcileState.Rejected r = s.rejection();
    return new SpecView.Reconcile(
        s.acceptedGeneration(),
        s.appliedGeneration(),
        s.gate(),
        s.gateReason(),
        s.bootId(),
        s.bootPending(),
        f == null
            ? null
            : new SpecView.Failure(
                f.generation(), f.kind().wireName(), f.gpu(), f.reason(), f.holder()),
        r == null ? null : new SpecView.Rejection(r.generation(), r.code(), r.reason()),
        s.steps().stream()
            .map(
                step ->
                    new SpecView.Step(
                        step.generation(),
                        step.step().ordinal(),
                        step.step().kind().wireName(),
                        step.step().gpu(),
                        step.step().detail(),
                        step.step().deadlineMillis(),
                        step.state(),
                        step.reason(),
                        step.holder(),
                        step.elapsedMillis()))
            .toList());
  }
}
