package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Collections;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "mig-configs",
    description = "MIG layouts (mig-parted files).",
    subcommands = {MigConfigsCommand.Import.class, MigConfigsCommand.List.class})
final class MigConfigsCommand {
  @Command(
      name = "import",
      description =
          "Import every config of a mig-parted YAML file; any problem refuses the whole file.")
  static final class Import implements Runnable {
    @Spec CommandSpec spec;

    @Option(
        names = {"-f", "--file"},
        required = true,
        paramLabel = "FILE",
        description = "the mig-parted YAML file")
    Path file;

    @Option(
        names = "--source",
        paramLabel = "TEXT",
        description = "where the file comes from, kept with each config (default: the file name)")
    String source;

    @Override
    public void run() {
      Fleetctl root = Fleetctl.root(spec);
      String yaml = Fleetctl.readText(spec, file);
      String from = source != null ? source : file.getFileName().toString();
      JsonNode result =
          root.client()
              .post(
                  "/api/v1/mig-configs" + ApiClient.query(Collections.singletonMap("source", from)),
                  yaml,
                  "application/yaml")
              .body();
      Fleetctl.show(spec, result, () -> renderImport(result));
    }
  }

  /** What an import did: the configs imported and replaced, then the warnings. */
  static String renderImport(JsonNode result) {
    StringBuilder out = new StringBuilder();
    out.append("imported: ").append(join(result.path("imported"))).append('\n');
    if (!result.path("replaced").isEmpty()) {
      out.append("replaced: ").append(join(result.path("replaced"))).append('\n');
    }
    for (JsonNode warning : result.path("warnings")) {
      out.append("warning: ").append(warning.asText()).append('\n');
    }
    return out.toString();
  }

  @Command(name = "list", description = "Stored MIG configs.")
  static final class List implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      JsonNode configs = Fleetctl.root(spec).client().get("/api/v1/mig-configs");
      Fleetctl.show(spec, configs, () -> table(configs).render());
    }
  }

  static Table table(JsonNode configs) {
    Table table = new Table("name", "source", "imported", "entries");
    for (JsonNode c : configs) {
      table.row(
          c.path("name").asText(),
          NodesCommand.text(c, "source"),
          NodesCommand.text(c, "importedAt"),
          String.join(
              "; ",
              RolloutCommand.list(c.path("entries")).stream().map(JsonNode::asText).toList()));
    }
    return table;
  }

  private static String join(JsonNode array) {
    return array.isEmpty()
        ? "none"
        : String.join(", ", RolloutCommand.list(array).stream().map(JsonNode::asText).toList());
  }
}
