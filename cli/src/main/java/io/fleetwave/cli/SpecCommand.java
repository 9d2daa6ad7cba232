package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "spec",
    mixinStandardHelpOptions = true,
    description = "A node's desired spec.",
    subcommands = {SpecCommand.Get.class, SpecCommand.Put.class})
final class SpecCommand {
  @Command(
      name = "get",
      mixinStandardHelpOptions = true,
      description =
          "Desired spec, observed GPUs, the last reconcile and whether it converged (YAML unless"
              + " -o json).")
  static final class Get implements Runnable {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME", description = "the node's name")
    String name;

    @Override
    public void run() {
      Fleetctl root = Fleetctl.root(spec);
      JsonNode view = root.client().get("/api/v1/nodes/" + ApiClient.encode(name) + "/spec");
      PrintWriter out = spec.commandLine().getOut();
      if (root.printStructured(out, view)) {
        return;
      }
      out.printf(
          "node %s: converged %s%s%n",
          view.path("node").asText(name),
          view.path("converged").asBoolean() ? "yes" : "no",
          view.hasNonNull("notConvergedReason")
              ? " (" + view.get("notConvergedReason").asText() + ")"
              : "");
      try {
        // A spec is a nested document: the table view is its YAML.
        out.print(Fleetctl.YAML.writeValueAsString(view));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      out.flush();
    }
  }

  @Command(
      name = "put",
      mixinStandardHelpOptions = true,
      description =
          "Set the node's desired spec (merged onto the current one), signed and published.")
  static final class Put implements Runnable {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME", description = "the node's name")
    String name;

    @Option(
        names = {"-f", "--file"},
        required = true,
        paramLabel = "FILE",
        description = "the spec, JSON or YAML")
    Path file;

    @Override
    public void run() {
      Fleetctl root = Fleetctl.root(spec);
      JsonNode body = Fleetctl.readDocument(spec, file);
      JsonNode published =
          root.client().put("/api/v1/nodes/" + ApiClient.encode(name) + "/spec", body).body();
      PrintWriter out = spec.commandLine().getOut();
      if (root.printStructured(out, published)) {
        return;
      }
      out.printf(
          "spec of node %s published as generation %d%n",
          published.path("node").asText(name), published.path("generation").asLong());
      out.flush();
    }
  }
}
