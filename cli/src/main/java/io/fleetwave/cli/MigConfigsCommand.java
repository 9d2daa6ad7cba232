package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Collections;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "mig-configs",
    mixinStandardHelpOptions = true,
    description = "MIG layouts (mig-parted files).",
    subcommands = {MigConfigsCommand.Import.class, MigConfigsCommand.List.class})
final class MigConfigsCommand {
  @Command(
      name = "import",
      mixinStandardHelpOptions = true,
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
      PrintWriter out = spec.commandLine().getOut();
      if (root.printStructured(out, result)) {
        return;
      }
      out.println("imported: " + join(result.path("imported")));
      if (!result.path("replaced").isEmpty()) {
        out.println("replaced: " + join(result.path("replaced")));
      }
      for (JsonNode warning : result.path("warnings")) {
        out.println("warning: " + warning.asText());
      }
      out.flush();
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Stored MIG configs.")
  static final class List implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      Fleetctl root = Fleetctl.root(spec);
      JsonNode configs = root.client().get("/api/v1/mig-configs");
      PrintWriter out = spec.commandLine().getOut();
      if (root.printStructured(out, configs)) {
        return;
      }
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
      out.print(table.render());
      out.flush();
    }
  }

  private static String join(JsonNode array) {
    return array.isEmpty()
        ? "none"
        : String.join(", ", RolloutCommand.list(array).stream().map(JsonNode::asText).toList());
  }
}
