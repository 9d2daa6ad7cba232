package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fleetctl drift}: the nodes that differ from what they should be (GET /api/v1/drift). */
@Command(
    name = "drift",
    description =
        "Nodes whose observed state differs from their desired spec, since when and why:"
            + " not-converged (the agent's reason), changed-outside (what changed, from what to"
            + " what), agent-silent.")
final class DriftCommand implements Runnable {
  @Spec CommandSpec spec;

  @Option(
      names = "--cause",
      paramLabel = "CAUSE",
      description = "only this cause: not-converged, changed-outside or agent-silent")
  String cause;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "1000",
      description = "at most this many nodes (default ${DEFAULT-VALUE})")
  int limit;

  @Override
  public void run() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("cause", cause);
    PagedListing.fetch(Fleetctl.root(spec).client(), "/api/v1/drift", params, limit)
        .show(spec, DriftCommand::table);
  }

  private static Table table(JsonNode nodes) {
    Table table = new Table("node", "cause", "since", "detail");
    for (JsonNode node : nodes) {
      for (JsonNode why : node.path("causes")) {
        table.row(
            NodesCommand.text(node, "node"),
            why.path("cause").asText(),
            NodesCommand.text(why, "since"),
            detail(why));
      }
    }
    return table;
  }

  /**
   * Each aspect changed outside as {@code gpu0 mig-mode: a -> b} where the cause lists some (the
   * API's reason then only counts them), else the reason (the agent's, or how long it is silent).
   */
  private static String detail(JsonNode why) {
    if (why.path("aspects").isEmpty()) {
      return NodesCommand.text(why, "reason");
    }
    List<String> aspects = new ArrayList<>();
    for (JsonNode aspect : why.path("aspects")) {
      aspects.add(
          ChangesCommand.where(aspect)
              + ": "
              + NodesCommand.text(aspect, "expected")
              + " -> "
              + NodesCommand.text(aspect, "observed"));
    }
    return String.join("; ", aspects);
  }
}
