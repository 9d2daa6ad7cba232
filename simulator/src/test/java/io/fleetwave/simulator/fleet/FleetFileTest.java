package io.fleetwave.simulator.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.HostOs;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.simulator.SimulatedHostFacts;
import io.fleetwave.testfixtures.events.NodeRegisteredBuilder;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.aggregator.AggregateWith;
import org.junit.jupiter.params.aggregator.ArgumentsAccessor;
import org.junit.jupiter.params.aggregator.ArgumentsAggregator;
import org.junit.jupiter.params.provider.CsvSource;

class FleetFileTest {
  private static final String ISSUE_SHAPE =
      """
      nodes:
        - name-prefix: talos-h200      # nodes talos-h200-0 .. talos-h200-3
          count: 4
          host: talos                  # ubuntu | ubuntu-driver-container | talos | cos | vgpu-host
          zone: zone-a
          labels: {pool: training}
          driver-version: "580.95.05"
          gpus:
            - model: "0x233510DE"      # PCI device id + vendor
              count: 8
      """;

  @Test
  void theIssueShapeYieldsFourTalosNodesWithEightH200Each(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("fleet.yaml");
    Files.writeString(file, ISSUE_SHAPE);

    FleetFile fleet = FleetFile.read(file);

    assertThat(fleet.nodes().stream().map(NodeSpec::name))
        .containsExactly("talos-h200-0", "talos-h200-1", "talos-h200-2", "talos-h200-3");
    NodeSpec node = fleet.nodes().getFirst();
    assertThat(node.gpuModels())
        .hasSize(8)
        .extracting(GpuModel::product)
        .containsOnly("NVIDIA H200");
    assertThat(node.group().zone()).isEqualTo("zone-a");
    assertThat(node.group().labels()).isEqualTo(Map.of("pool", "training"));
    assertThat(node.group().driverVersion()).isEqualTo("580.95.05");
    assertThat(node.os().hostKind()).isEqualTo(HostKind.TALOS);
  }

  /**
   * A row of the host kinds' table (kind, os id and version, kernel, ...) as the HostOs it names.
   */
  static final class ExpectedOs implements ArgumentsAggregator {
    @Override
    public HostOs aggregateArguments(ArgumentsAccessor row, ParameterContext context) {
      return new HostOs(
          WireNamed.parse(HostKind.class, row.getString(0)),
          row.getString(1),
          row.getString(2),
          row.getString(3),
          row.getBoolean(4),
          row.getBoolean(5),
          row.getString(6),
          row.getString(7),
          WireNamed.parse(DriverProvider.class, row.getString(8)));
    }
  }

  @ParameterizedTest
  @CsvSource({
    "ubuntu, ubuntu, 22.04, 5.15.0-130-generic, false, true, /, /, host-package",
    "ubuntu-driver-container, ubuntu, 22.04, 5.15.0-130-generic, false, true, /run/nvidia/driver, /,"
        + " driver-container",
    "talos, talos, v1.10.6, 6.12.40-talos, true, false, /usr/local, /, os-image",
    "cos, cos, 121, 6.6.87+, true, true, /home/kubernetes/bin/nvidia, /, os-image",
    "vgpu-host, ubuntu, 24.04, 6.8.0-51-generic, false, true, /, /, host-package",
  })
  void eachHostKindRegistersTheFactsOfItsOs(
      String host, @AggregateWith(ExpectedOs.class) HostOs expected) {
    FleetFile fleet =
        FleetFile.parse(
            """
            nodes:
              - name-prefix: n
                count: 1
                host: %s
                zone: zone-b
                labels: {pool: p}
                driver-version: "580.95.05"
                gpus: [{model: L4, count: 1}]
            """
                .formatted(host),
            "t.yaml");

    NodeRegistered facts = SimulatedHostFacts.of(fleet.nodes().getFirst());

    assertThat(facts)
        .isEqualTo(
            NodeRegisteredBuilder.forHost("n-0", WireNamed.parse(HostKind.class, host))
                .hostOs(expected)
                .driverVersion("580.95.05")
                .zone("zone-b")
                .labels(Map.of("pool", "p"))
                .reasons(facts.reasons())
                .build());
    assertThat(facts.reasons().get("driverRoot"))
        .isEqualTo(
            "simulated "
                + host
                + " host (fleet group n): driver libraries under "
                + expected.driverRoot());
    // A reason for every OS fact (each component of HostOs) and for the driver version.
    List<String> reasoned = new ArrayList<>();
    for (RecordComponent fact : HostOs.class.getRecordComponents()) {
      reasoned.add(fact.getName());
    }
    reasoned.add("driverVersion");
    assertThat(facts.reasons().keySet()).containsExactlyInAnyOrderElementsOf(reasoned);
  }

  @Test
  void osVersionPicksTheKernelOfThatRelease() {
    FleetFile fleet =
        FleetFile.parse(
            """
            nodes:
              - {name-prefix: u, count: 1, host: ubuntu, os-version: "24.04",
                 driver-version: "580.95.05", gpus: [{model: T4, count: 1}]}
            """,
            "t.yaml");
    assertThat(fleet.nodes().getFirst().os().kernel()).isEqualTo("6.8.0-51-generic");
  }

  @Test
  void unknownFieldsAreRejectedWithLineAndField() {
    String yaml = ISSUE_SHAPE.replace("    zone: zone-a", "    zone: zone-a\n    colour: blue");
    assertThatThrownBy(() -> FleetFile.parse(yaml, "fleet.yaml"))
        .isInstanceOf(InvalidFleetFileException.class)
        .hasMessageStartingWith(
            "fleet.yaml line 6: unknown field 'colour' in nodes[0].colour (known: [count, driver-version, gpus, host, labels, name-prefix, os-version, zone])");
  }

  @Test
  void unknownModelsAreRejectedNamingTheGroup() {
    assertThatThrownBy(() -> FleetFile.parse(ISSUE_SHAPE.replace("0x233510DE", "0xDEAD10DE"), "f"))
        .hasMessageStartingWith(
            "f: node group 'talos-h200' (nodes[0]): gpus[0]: unknown GPU model '0xDEAD10DE'"
                + " (known: 0x20B010DE A100-40GB,");
  }

  @Test
  void unknownHostKindsAreRejectedWithTheKnownOnes() {
    assertThatThrownBy(
            () -> FleetFile.parse(ISSUE_SHAPE.replace("host: talos", "host: flatcar"), "f"))
        .hasMessage(
            "f: node group 'talos-h200' (nodes[0]): host: unknown host kind 'flatcar', expected"
                + " one of ubuntu, ubuntu-driver-container, talos, cos, vgpu-host");
  }

  @Test
  void countZeroIsRejected() {
    assertThatThrownBy(() -> FleetFile.parse(ISSUE_SHAPE.replace("count: 4", "count: 0"), "f"))
        .hasMessage("f: node group 'talos-h200' (nodes[0]): count must be at least 1, got 0");
    assertThatThrownBy(() -> FleetFile.parse(ISSUE_SHAPE.replace("count: 8", "count: 0"), "f"))
        .hasMessage(
            "f: node group 'talos-h200' (nodes[0]): gpus[0].count must be at least 1, got 0");
  }

  @Test
  void otherBadValuesAreRejectedWithSpecificMessages() {
    assertThatThrownBy(() -> FleetFile.parse(ISSUE_SHAPE.replace("count: 4", "count: many"), "f"))
        .hasMessageStartingWith("f line 3: invalid value at nodes[0].count:");
    assertThatThrownBy(
            () ->
                FleetFile.parse(
                    ISSUE_SHAPE.replace("    driver-version: \"580.95.05\"\n", ""), "f"))
        .hasMessage(
            "f: node group 'talos-h200' (nodes[0]): missing required field 'driver-version'");
    assertThatThrownBy(
            () ->
                FleetFile.parse(
                    ISSUE_SHAPE
                        .replace("host: talos", "host: vgpu-host")
                        .replace("0x233510DE", "A100-80GB"),
                    "f"))
        .hasMessage(
            "f: node group 'talos-h200' (nodes[0]): gpus[0]: A100-80GB is not SR-IOV capable, a"
                + " vgpu-host needs it");
    assertThatThrownBy(
            () ->
                FleetFile.parse(
                    ISSUE_SHAPE.replace("0x233510DE", "B200").replace("580.95.05", "550.54.15"),
                    "f"))
        .hasMessage(
            "f: node group 'talos-h200' (nodes[0]): gpus[0]: B200 needs driver 570.00 or newer,"
                + " group has 550.54.15");
    assertThatThrownBy(
            () ->
                FleetFile.parse(
                    ISSUE_SHAPE.replace("host: talos", "host: talos\n    os-version: v0.1"), "f"))
        .hasMessage(
            "f: node group 'talos-h200' (nodes[0]): os-version 'v0.1' is not simulated for host"
                + " talos (known: [v1.10.6, v1.9.6])");
    assertThatThrownBy(() -> FleetFile.parse(ISSUE_SHAPE + ISSUE_SHAPE.substring(7), "f"))
        .hasMessage(
            "f: node group 'talos-h200' (nodes[1]): node name talos-h200-0 is also produced by"
                + " group 'talos-h200'");
    assertThatThrownBy(() -> FleetFile.parse("nodes: []", "f"))
        .hasMessage("f: 'nodes' must list at least one node group");
  }

  @Test
  void missingFilesAreReportedWithTheirPath(@TempDir Path dir) {
    assertThatThrownBy(() -> FleetFile.read(dir.resolve("absent.yaml")))
        .isInstanceOf(InvalidFleetFileException.class)
        .hasMessageStartingWith("cannot read fleet file " + dir.resolve("absent.yaml"));
  }

  @Test
  void theBundledDemoFleetIsLargeAndMixed() {
    FleetFile demo = FleetFile.bundledDemo();

    assertThat(demo.nodes()).hasSizeGreaterThanOrEqualTo(200);
    assertThat(demo.nodes().stream().map(n -> n.os().hostKind()).collect(Collectors.toSet()))
        .isEqualTo(Set.of(HostKind.values()));
    Set<GpuModel> models =
        demo.nodes().stream().flatMap(n -> n.gpuModels().stream()).collect(Collectors.toSet());
    assertThat(models).hasSizeGreaterThanOrEqualTo(6);
    assertThat(models).anyMatch(m -> !m.migCapable());
    assertThat(demo.nodes().stream().map(n -> n.group().zone()).distinct()).hasSizeGreaterThan(2);
    assertThat(demo.nodes().stream().map(n -> n.group().labels().get("pool")).distinct())
        .hasSizeGreaterThan(2);
    assertThat(
            Collections.frequency(demo.nodes().stream().map(NodeSpec::name).toList(), "cos-l4-0"))
        .isEqualTo(1);
  }
}
