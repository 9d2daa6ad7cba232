package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fleetctl audit}: who changed what, newest first (GET /api/v1/audit). */
@Command(
    name = "audit",
    description =
        "The audit log, newest first: every change request with its actor, time, status and"
            + " outcome.")
final class AuditCommand implements Runnable {
  static final String BASE = "/api/v1/audit";

  @Spec CommandSpec spec;

  @Option(
      names = "--actor",
      paramLabel = "SUBJECT",
      description = "only this actor (a token subject)")
  String actor;

  @Option(
      names = "--since",
      paramLabel = "INSTANT",
      description = "only entries at or after this instant, e.g. 2026-11-30T16:00:00Z")
  String since;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "200",
      description = "at most this many entries (default ${DEFAULT-VALUE})")
  int limit;

  @Override
  public void run() {
    Map<String, Object> query = new LinkedHashMap<>();
    query.put("actor", actor);
    query.put("since", since);
    PagedListing.fetch(Fleetctl.root(spec).client(), BASE, query, limit)
        .show(spec, AuditCommand::table);
  }

  static Table table(JsonNode entries) {
    Table table = new Table("at", "actor", "action", "target", "status", "outcome");
    for (JsonNode e : entries) {
      table.row(
          NodesCommand.text(e, "at"),
          e.path("actor").asText(),
          e.path("action").asText(),
          e.path("target").asText(),
          e.path("status").asInt(),
          e.path("outcome").asText());
    }
    return table;
  }
}
