package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fleetctl changes}: what changed on the nodes in a time window, and why (GET
 * /api/v1/changes, or /api/v1/nodes/{name}/changes for one node).
 */
@Command(
    name = "changes",
    description =
        "What changed on the nodes (driver, MIG mode and layout, VFs, health) and why: the spec"
            + " that asked for it (with its rollout or the person who set it), a reboot, or"
            + " outside (nothing Fleetwave asked for).")
final class ChangesCommand implements Runnable {
  @Spec CommandSpec spec;

  @Mixin SelectorOption selector;

  @Option(names = "--node", paramLabel = "NAME", description = "only this node")
  String node;

  @Option(
      names = "--since",
      paramLabel = "TIME",
      description = "RFC 3339 time, inclusive (the API's default: 24 hours ago)")
  String since;

  @Option(
      names = "--until",
      paramLabel = "TIME",
      description = "RFC 3339 time, exclusive (the API's default: now)")
  String until;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "1000",
      description = "at most this many changes (default ${DEFAULT-VALUE})")
  int limit;

  @Override
  public void run() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("since", since);
    params.put("until", until);
    String path;
    if (node != null) {
      path = "/api/v1/nodes/" + ApiClient.encode(node) + "/changes";
    } else {
      path = "/api/v1/changes";
      selector.addTo(params);
    }
    PagedListing.fetch(Fleetctl.root(spec).client(), path, params, limit)
        .show(spec, ChangesCommand::table);
  }

  private static Table table(JsonNode changes) {
    Table table = new Table("time", "node", "change", "from", "to", "cause", "asked-by");
    for (JsonNode change : changes) {
      table.row(
          NodesCommand.text(change, "time"),
          NodesCommand.text(change, "node"),
          where(change),
          NodesCommand.text(change, "before"),
          NodesCommand.text(change, "after"),
          cause(change),
          askedBy(change.path("askedBy")));
    }
    return table;
  }

  /** {@code driver}, or the GPU and the aspect: {@code gpu0 mig-mode}. */
  static String where(JsonNode change) {
    String aspect = change.path("aspect").asText();
    return change.hasNonNull("gpu") ? "gpu" + change.path("gpu").asInt() + " " + aspect : aspect;
  }

  private static String cause(JsonNode change) {
    String cause = change.path("cause").asText();
    return change.hasNonNull("generation")
        ? cause + " (generation " + change.path("generation").asLong() + ")"
        : cause;
  }

  /** The rollout (name, wave, phase) and its creator, or the person who set the spec. */
  private static String askedBy(JsonNode asked) {
    if (asked.isMissingNode() || asked.isNull()) {
      return null;
    }
    JsonNode rollout = asked.path("rollout");
    String actor = NodesCommand.text(asked, "actor");
    if (rollout.isMissingNode() || rollout.isNull()) {
      return actor;
    }
    return "rollout "
        + rollout.path("name").asText()
        + " wave "
        + rollout.path("wave").asInt()
        + " "
        + rollout.path("phase").asText()
        + (actor == null ? "" : " by " + actor);
  }
}
