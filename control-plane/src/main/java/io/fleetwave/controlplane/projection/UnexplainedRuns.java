package io.fleetwave.controlplane.projection;

import io.fleetwave.core.provenance.AspectKey;
import io.fleetwave.core.provenance.NodeProvenance;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node's unexplained runs ({@link NodeProvenance#unexplained()}) as the JSON of
 * node_provenance.unexplained (V44), written by the projection and read by the drift view.
 */
public final class UnexplainedRuns {
  private UnexplainedRuns() {}

  /**
   * The unexplained runs as stored (V44), in the order of their aspects (the driver, then by GPU);
   * NULL, a row loaded from a snapshot published before V44, is none.
   */
  public static Map<AspectKey, NodeProvenance.UnexplainedRun> read(JsonObject runs) {
    Map<AspectKey, NodeProvenance.UnexplainedRun> read = new TreeMap<>();
    if (runs == null) {
      return read;
    }
    runs.forEach(
        e -> {
          JsonObject run = (JsonObject) e.getValue();
          read.put(
              AspectKey.parse(e.getKey()),
              new NodeProvenance.UnexplainedRun(
                  run.getLong("epoch"),
                  run.getLong("seq"),
                  Instant.EPOCH.plus(run.getLong("since"), ChronoUnit.MICROS),
                  run.getString("before"),
                  run.getString("after"),
                  run.getLong("lastEpoch")));
        });
    return read;
  }

  /**
   * The runs as JSON; times in microseconds since 1970, as the PostgreSQL client stores a time
   * (truncated), so that V44's runs of the history stored before it match the fold's.
   */
  static JsonObject json(Map<AspectKey, NodeProvenance.UnexplainedRun> runs) {
    JsonObject json = new JsonObject();
    runs.forEach(
        (key, run) ->
            json.put(
                key.text(),
                new JsonObject()
                    .put("epoch", run.epoch())
                    .put("seq", run.seq())
                    .put("since", ChronoUnit.MICROS.between(Instant.EPOCH, run.since()))
                    .put("before", run.before())
                    .put("after", run.after())
                    .put("lastEpoch", run.lastEpoch())));
    return json;
  }
}
