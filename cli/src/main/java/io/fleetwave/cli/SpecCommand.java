package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "spec",
    description = "A node's desired spec.",
    subcommands = {SpecCommand.Get.class, SpecCommand.Put.class})
final class SpecCommand {
  @Command(
      name = "get",
      description =
          "Desired spec, observed GPUs, the last reconcile and whether it converged (YAML unless"
              + " -o json).")
  static final class Get implements Runnable {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME", description = "the node's name")
    String name;

    @Override
    public void run() {
      JsonNode view = Fleetctl.root(spec).client().get(path(name));
      Fleetctl.show(spec, view, () -> render(view, name));
    }
  }

  /** The API's path of a node's spec. */
  static String path(String node) {
    return "/api/v1/nodes/" + ApiClient.encode(node) + "/spec";
  }

  /** Whether the node converged, then its spec view as YAML (a nested document: no table). */
  static String render(JsonNode view, String name) {
    String converged =
        "node %s: converged %s%s%n"
            .formatted(
                view.path("node").asText(name),
                view.path("converged").asBoolean() ? "yes" : "no",
                view.hasNonNull("notConvergedReason")
                    ? " (" + view.get("notConvergedReason").asText() + ")"
                    : "");
    try {
      return converged + Fleetctl.YAML.writeValueAsString(view);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Command(
      name = "put",
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
      JsonNode body = Fleetctl.readDocument(spec, file);
      JsonNode published = Fleetctl.root(spec).client().put(path(name), body).body();
      Fleetctl.show(
          spec,
          published,
          () ->
              "spec of node %s published as generation %d%n"
                  .formatted(
                      published.path("node").asText(name), published.path("generation").asLong()));
    }
  }
}
