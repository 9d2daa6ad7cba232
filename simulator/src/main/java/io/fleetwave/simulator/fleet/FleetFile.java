package io.fleetwave.simulator.fleet;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A simulated heterogeneous fleet: groups of alike nodes (host kind, zone, labels, driver, GPUs).
 * Read strictly: unknown fields and bad values are refused with the line or the node group named.
 */
public record FleetFile(List<NodeGroup> groups) {
  static final String DEMO_RESOURCE = "demo-fleet.yaml";

  public FleetFile {
    groups = List.copyOf(groups);
  }

  /**
   * @throws InvalidFleetFileException when the file is unreadable or invalid
   */
  public static FleetFile read(Path file) {
    String yaml;
    try {
      yaml = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new InvalidFleetFileException("cannot read fleet file " + file + ": " + e, e);
    }
    return parse(yaml, file.toString());
  }

  /** Parses YAML text; {@code source} names it in error messages. */
  public static FleetFile parse(String yaml, String source) {
    return FleetFileParser.parse(yaml, source);
  }

  /** The bundled demo fleet: 200+ nodes of every host kind and many GPU models. */
  public static FleetFile bundledDemo() {
    try (InputStream in = FleetFile.class.getResourceAsStream(DEMO_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("bundled " + DEMO_RESOURCE + " is missing");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), DEMO_RESOURCE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read bundled " + DEMO_RESOURCE, e);
    }
  }

  /** Every node, group by group, in name order within a group. */
  public List<NodeSpec> nodes() {
    return groups.stream()
        .flatMap(
            g ->
                java.util.stream.IntStream.range(0, g.count())
                    .mapToObj(i -> new NodeSpec(g.nodeName(i), g)))
        .toList();
  }
}
