package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "nodes",
    description = "The fleet's nodes as projected.",
    subcommands = {NodesCommand.List.class, NodesCommand.Get.class})
final class NodesCommand {
  @Command(name = "list", description = "List nodes, sorted by name (every page).")
  static final class List implements Runnable {
    @Spec CommandSpec spec;

    @Mixin SelectorOption selector;

    @Option(
        names = "--host-kind",
        paramLabel = "KIND",
        description = "ubuntu, ubuntu-driver-container, talos, cos or vgpu-host")
    String hostKind;

    @Option(
        names = "--gpu-model",
        paramLabel = "PCI-ID",
        description = "a GPU model the node has, e.g. 0x233010DE")
    String gpuModel;

    @Mixin AsOfOption asOf;

    @Override
    public void run() {
      Map<String, Object> params = new LinkedHashMap<>();
      params.put("hostKind", hostKind);
      params.put("gpuModel", gpuModel);
      selector.addTo(params);
      asOf.addTo(params);
      PagedListing.fetchAll(Fleetctl.root(spec).client(), "/api/v1/nodes", params)
          .show(spec, NodesCommand::nodesTable);
    }
  }

  @Command(name = "get", description = "One node with its GPUs.")
  static final class Get implements Runnable {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME", description = "the node's name")
    String name;

    @Mixin AsOfOption asOf;

    @Override
    public void run() {
      Fleetctl root = Fleetctl.root(spec);
      Map<String, Object> params = new LinkedHashMap<>();
      asOf.addTo(params);
      JsonNode node =
          root.client().get("/api/v1/nodes/" + ApiClient.encode(name) + ApiClient.query(params));
      Fleetctl.show(spec, node, () -> nodeDetails(node));
    }
  }

  static Table nodesTable(JsonNode nodes) {
    Table table =
        new Table("name", "host-kind", "zone", "driver", "gpus", "mig", "converged", "last-seen");
    for (JsonNode node : nodes) {
      table.row(
          node.path("name").asText(),
          text(node, "hostKind"),
          text(node, "zone"),
          text(node, "driverVersion"),
          gpuSummary(node.path("gpus")),
          migSummary(node.path("gpus")),
          node.path("converged").asBoolean() ? "yes" : "no",
          text(node, "lastSeen"));
    }
    return table;
  }

  /** "8x NVIDIA H100 80GB HBM3", models counted in order of first appearance. */
  static String gpuSummary(JsonNode gpus) {
    Map<String, Integer> byProduct = new LinkedHashMap<>();
    for (JsonNode gpu : gpus) {
      byProduct.merge(gpu.path("product").asText("?"), 1, Integer::sum);
    }
    return byProduct.entrySet().stream()
        .map(e -> e.getValue() + "x " + e.getKey())
        .collect(Collectors.joining(", "));
  }

  /** MIG modes counted, e.g. "enabled:8" or "disabled:2,enabled:6"; "-" without MIG-capable GPU. */
  static String migSummary(JsonNode gpus) {
    Map<String, Integer> byMode = new TreeMap<>();
    for (JsonNode gpu : gpus) {
      if (gpu.path("migCapable").asBoolean()) {
        byMode.merge(gpu.path("migMode").asText("?"), 1, Integer::sum);
      }
    }
    return byMode.entrySet().stream()
        .map(e -> e.getKey() + ":" + e.getValue())
        .collect(Collectors.joining(","));
  }

  static String nodeDetails(JsonNode node) {
    StringBuilder out = new StringBuilder();
    Table facts = new Table("field", "value", "reason");
    JsonNode reasons = node.path("reasons");
    for (String field :
        java.util.List.of(
            "name",
            "hostKind",
            "osId",
            "osVersion",
            "kernel",
            "readOnlyRoot",
            "systemd",
            "driverRoot",
            "deviceRoot",
            "driverProvider",
            "driverVersion",
            "zone",
            "lastSeen",
            "desiredGeneration",
            "appliedGeneration",
            "converged",
            "notConvergedReason")) {
      facts.row(field, text(node, field), reasons.path(field).asText(""));
    }
    String labels =
        node.path("labels").properties().stream()
            .map(e -> e.getKey() + "=" + e.getValue().asText())
            .collect(Collectors.joining(","));
    facts.row("labels", labels, "");
    out.append(facts.render()).append('\n');
    Table gpus =
        new Table("gpu", "product", "pci-bus", "memory-mib", "mig", "instances", "vfs", "health");
    for (JsonNode gpu : node.path("gpus")) {
      String mig =
          gpu.path("migCapable").asBoolean()
              ? gpu.path("migMode").asText()
                  + (gpu.hasNonNull("migModePending")
                          && !gpu.get("migModePending")
                              .asText()
                              .equals(gpu.path("migMode").asText())
                      ? " (pending " + gpu.get("migModePending").asText() + ")"
                      : "")
              : "n/a";
      String instances =
          java.util.stream.StreamSupport.stream(gpu.path("instances").spliterator(), false)
              .map(
                  i ->
                      i.path("profile").asText()
                          + "@"
                          + i.at("/placement/start").asInt()
                          + "+"
                          + i.at("/placement/size").asInt())
              .collect(Collectors.joining(" "));
      gpus.row(
          gpu.path("index").asInt(),
          text(gpu, "product"),
          text(gpu, "pciBusId"),
          text(gpu, "memoryMiB"),
          mig,
          instances,
          gpu.path("vfsEnabled").asInt() + "/" + gpu.path("vfsTotal").asInt(),
          text(gpu, "health"));
    }
    out.append(gpus.render());
    return out.toString();
  }

  /** A field as text; null when absent or null (shown as "-"). */
  static String text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isMissingNode() || value.isNull() ? null : value.asText();
  }
}
