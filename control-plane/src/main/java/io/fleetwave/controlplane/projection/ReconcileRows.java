package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.StepKind;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@link ReconcileState} to and from the node_reconcile and reconcile_steps rows. */
public final class ReconcileRows {
  private ReconcileRows() {}

  /** States by node from the rows of both tables (nodes with no row are absent). */
  public static Map<String, ReconcileState> read(Iterable<Row> reconciles, Iterable<Row> steps) {
    Map<String, List<ReconcileState.Step>> stepsByNode =
        Rows.grouped(
            steps,
            row -> row.getString("node"),
            row ->
                new ReconcileState.Step(
                    row.getLong("generation"),
                    new PlannedStep(
                        row.getInteger("ordinal"),
                        WireNamed.parse(StepKind.class, row.getString("kind")),
                        row.getInteger("gpu"),
                        row.getString("detail"),
                        row.getLong("deadline_ms")),
                    row.getString("state"),
                    row.getString("reason"),
                    row.getString("holder"),
                    row.getLong("elapsed_ms")));
    Map<String, ReconcileState> states = new HashMap<>();
    for (Row row : reconciles) {
      String node = row.getString("node");
      Long failureGeneration = row.getLong("failure_generation");
      Long rejectionGeneration = row.getLong("rejection_generation");
      states.put(
          node,
          new ReconcileState(
              row.getLong("accepted_generation"),
              row.getLong("applied_generation"),
              row.getString("gate"),
              row.getLong("gate_generation"),
              row.getString("gate_reason"),
              row.getString("boot_id"),
              row.getBoolean("boot_pending"),
              failureGeneration == null
                  ? null
                  : new ReconcileState.Failure(
                      failureGeneration,
                      WireNamed.parse(StepKind.class, row.getString("failure_step")),
                      row.getInteger("failure_gpu"),
                      row.getString("failure_reason"),
                      row.getString("failure_holder")),
              rejectionGeneration == null
                  ? null
                  : new ReconcileState.Rejected(
                      rejectionGeneration,
                      row.getString("rejection_code"),
                      row.getString("rejection_reason")),
              stepsByNode.getOrDefault(node, List.of())));
    }
    return states;
  }

  static Tuple reconcileTuple(String node, ReconcileState s) {
    ReconcileState.Failure f = s.failure();
    ReconcileState.Rejected r = s.rejection();
    return Tuple.from(
        Arrays.asList(
            node,
            s.acceptedGeneration(),
            s.appliedGeneration(),
            s.gate(),
            s.gateGeneration(),
            s.gateReason(),
            s.bootId(),
            s.bootPending(),
            f == null ? null : f.generation(),
            f == null ? null : f.kind().wireName(),
            f == null ? null : f.gpu(),
            f == null ? null : f.reason(),
            f == null ? null : f.holder(),
            r == null ? null : r.generation(),
            r == null ? null : r.code(),
            r == null ? null : r.reason()));
  }

  static List<Tuple> stepTuples(String node, ReconcileState s) {
    return s.steps().stream()
        .map(
            step ->
                Tuple.from(
                    Arrays.asList(
                        node,
                        step.generation(),
                        step.step().ordinal(),
                        step.step().kind().wireName(),
                        step.step().gpu(),
                        step.step().detail(),
                        step.step().deadlineMillis(),
                        step.state(),
                        step.reason(),
                        step.holder(),
                        step.elapsedMillis())))
        .toList();
  }
}
