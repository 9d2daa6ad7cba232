package io.fleetwave.demo.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.NodeEnrolments;
import io.fleetwave.demo.fixtures.DrainFleetProfile;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.simulator.FleetEnrolment;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.SimulatedNode;
import io.fleetwave.simulator.fleet.FleetFile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Issue 2's end-to-end path: 50 simulated agents of all five host kinds publish to the real broker,
 * the control plane projects them into the real PostgreSQL, and the API shows exactly those nodes
 * with the facts of their host kind and the GPUs of their models.
 *
 * <p>In the demo module, whose tests run the control plane with simulated fleets: here in the drain
 * profile's application, beside its own fleet (whose nodes carry no {@code suite=e2e} label).
 */
@QuarkusTest
@TestProfile(DrainFleetProfile.class)
class FleetEndToEndIT {
  private static final String FLEET =
      """
      nodes:
        - {name-prefix: e2e-ubuntu, count: 10, host: ubuntu, os-version: "22.04", zone: zone-a,
           labels: {suite: e2e, pool: training}, driver-version: "580.95.05",
           gpus: [{model: "0x20B210DE", count: 8}]}
        - {name-prefix: e2e-dc, count: 10, host: ubuntu-driver-container, zone: zone-b,
           labels: {suite: e2e, pool: training}, driver-version: "580.95.05",
           gpus: [{model: "0x233010DE", count: 4}]}
        - {name-prefix: e2e-talos, count: 10, host: talos, zone: zone-a,
           labels: {suite: e2e, pool: inference}, driver-version: "580.95.05",
           gpus: [{model: "0x233510DE", count: 8}]}
        - {name-prefix: e2e-cos, count: 10, host: cos, zone: zone-c,
           labels: {suite: e2e, pool: inference}, driver-version: "580.95.05",
           gpus: [{model: "0x27B810DE", count: 1}, {model: "0x1EB810DE", count: 1}]}
        - {name-prefix: e2e-vgpu, count: 10, host: vgpu-host, zone: zone-b,
           labels: {suite: e2e, pool: vdi}, driver-version: "580.95.05",
           gpus: [{model: "0x26B910DE", count: 2}]}
      """;

  /**
   * Host facts each kind must report: (readOnlyRoot, systemd, driverRoot, deviceRoot, provider).
   */
  private static final Map<String, List<Object>> FACTS =
      Map.of(
          "ubuntu", List.of(false, true, "/", "/", "host-package"),
          "ubuntu-driver-container",
              List.of(false, true, "/run/nvidia/driver", "/", "driver-container"),
          "talos", List.of(true, false, "/usr/local", "/", "os-image"),
          "cos", List.of(true, true, "/home/kubernetes/bin/nvidia", "/", "os-image"),
          "vgpu-host", List.of(false, true, "/", "/", "host-package"));

  /** Per node group: host kind and (pciDeviceId, product, memoryMiB, migCapable) per GPU. */
  private static final Map<String, List<List<Object>>> GPUS =
      Map.of(
          "e2e-ubuntu", List.of(List.of("0x20B210DE", "NVIDIA A100-SXM4-80GB", 81920, true)),
          "e2e-dc", List.of(List.of("0x233010DE", "NVIDIA H100 80GB HBM3", 81559, true)),
          "e2e-talos", List.of(List.of("0x233510DE", "NVIDIA H200", 143771, true)),
          "e2e-cos",
              List.of(
                  List.of("0x27B810DE", "NVIDIA L4", 23034, false),
                  List.of("0x1EB810DE", "Tesla T4", 15360, false)),
          "e2e-vgpu", List.of(List.of("0x26B910DE", "NVIDIA L40S", 46068, false)));

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  @Test
  void theApiShowsExactlyTheSimulatedNodesWithTheirFactsAndGpus() {
    try (SimulatedFleet fleet =
        SimulatedFleet.start(
            FleetFile.parse(FLEET, "e2e-fleet.yaml"),
            SimulatedFleet.Settings.of(bootstrap, Duration.ofSeconds(2)),
            null,
            null,
            FleetEnrolment.of(
                URI.create("http://localhost:" + RestAssured.port + "/"),
                node -> NodeEnrolments.joinToken(node, 600)))) {
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> nodes().getInt("total") == 50 && allInventoried(nodes()));

      JsonPath page = nodes();
      List<Map<String, Object>> items = page.getList("items");
      assertThat(items)
          .extracting(n -> (String) n.get("name"))
          .containsExactlyInAnyOrderElementsOf(
              fleet.nodes().stream().map(SimulatedNode::name).toList());
      for (Map<String, Object> node : items) {
        assertNodeMatches(node, fleet.node((String) node.get("name")).orElseThrow());
      }
      given()
          .queryParam("selector", "suite=e2e")
          .queryParam("hostKind", "talos")
          .get("/api/v1/nodes")
          .then()
          .statusCode(200)
          .body("total", org.hamcrest.Matchers.equalTo(10));
    }
  }

  private static JsonPath nodes() {
    return given()
        .queryParam("selector", "suite=e2e")
        .queryParam("size", 100)
        .get("/api/v1/nodes")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath();
  }

  private static boolean allInventoried(JsonPath page) {
    List<List<?>> gpus = page.getList("items.gpus");
    return gpus.stream().allMatch(list -> list != null && !list.isEmpty());
  }

  @SuppressWarnings("unchecked")
  private static void assertNodeMatches(Map<String, Object> node, SimulatedNode simulated) {
    String name = (String) node.get("name");
    String hostKind = (String) node.get("hostKind");
    List<Object> facts = FACTS.get(hostKind);
    assertThat(facts).as("%s has an unexpected host kind %s", name, hostKind).isNotNull();
    assertThat(hostKind).isEqualTo(simulated.facts().hostKind().wireName());
    assertThat(
            List.of(
                node.get("readOnlyRoot"),
                node.get("systemd"),
                node.get("driverRoot"),
                node.get("deviceRoot"),
                node.get("driverProvider")))
        .as(name)
        .isEqualTo(facts);
    assertThat(node.get("driverVersion")).isEqualTo("580.95.05");
    assertThat(node.get("osId")).isEqualTo(simulated.facts().osId());
    assertThat(node.get("kernel")).isEqualTo(simulated.facts().kernel());
    assertThat((Map<String, String>) node.get("labels")).containsEntry("suite", "e2e");

    String group = name.substring(0, name.lastIndexOf('-'));
    List<List<Object>> models = GPUS.get(group);
    List<Map<String, Object>> gpus = (List<Map<String, Object>>) node.get("gpus");
    List<Gpu> expected = simulated.gpus().inventory();
    assertThat(gpus).hasSameSizeAs(expected);
    for (int i = 0; i < gpus.size(); i++) {
      Map<String, Object> gpu = gpus.get(i);
      Gpu truth = expected.get(i);
      List<Object> row =
          List.of(
              gpu.get("pciDeviceId"),
              gpu.get("product"),
              gpu.get("memoryMiB"),
              gpu.get("migCapable"));
      assertThat(models).as("%s GPU %d", name, i).contains(row);
      assertThat(gpu.get("index")).isEqualTo(truth.index());
      assertThat(gpu.get("uuid")).isEqualTo(truth.uuid());
      assertThat(gpu.get("pciBusId")).isEqualTo(truth.pciBusId());
      assertThat(gpu.get("migMode")).isEqualTo(truth.migMode().wireName());
      assertThat(gpu.get("vfsTotal")).isEqualTo(truth.vfsTotal());
    }
  }
}
