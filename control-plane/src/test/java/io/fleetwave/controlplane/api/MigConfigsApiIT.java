package io.fleetwave.controlplane.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The MIG config API over the real PostgreSQL store. */
@QuarkusTest
class MigConfigsApiIT {
  /**
   * Configs under mig-configs in NVIDIA's config-default.yaml v0.15.0 (NvidiaDefaultConfigTest).
   */
  private static final int NVIDIA_DEFAULT_CONFIGS = 81;

  @Test
  void nvidiasDefaultFileImportsWholeAndReadsBackAsJsonAndYaml() {
    JsonPath imported =
        given()
            .contentType("application/yaml")
            .queryParam("source", "nvidia config-default.yaml")
            .body(bytes(resource("mig/nvidia-config-default.yaml")))
            .post("/api/v1/mig-configs")
            .then()
            .statusCode(201)
            .extract()
            .jsonPath();
    assertThat(imported.getList("imported", String.class))
        .hasSize(NVIDIA_DEFAULT_CONFIGS)
        .contains("all-disabled", "all-balanced", "all-1g.10gb");
    // The store was seeded with the same file at start: every name is reported as replaced.
    assertThat(imported.getList("replaced", String.class)).hasSize(NVIDIA_DEFAULT_CONFIGS);

    List<Map<String, Object>> listed =
        given().get("/api/v1/mig-configs").then().statusCode(200).extract().jsonPath().getList("$");
    assertThat(listed.stream().map(c -> c.get("name"))).contains("all-balanced", "all-disabled");
    assertThat(listed).hasSizeGreaterThanOrEqualTo(NVIDIA_DEFAULT_CONFIGS);

    JsonPath balanced =
        given().get("/api/v1/mig-configs/all-balanced").then().statusCode(200).extract().jsonPath();
    assertThat(balanced.getString("source")).isEqualTo("nvidia config-default.yaml");
    List<Map<String, Object>> entries = balanced.getList("entries");
    Map<String, Object> h100 =
        entries.stream()
            .filter(e -> ((List<?>) e.get("deviceFilter")).contains("0x233010DE"))
            .findFirst()
            .orElseThrow();
    assertThat(h100)
        .containsEntry("devices", "all")
        .containsEntry("migEnabled", true)
        .containsEntry("migDevices", Map.of("1g.10gb", 2, "2g.20gb", 1, "3g.40gb", 1));

    String yaml =
        given()
            .accept("application/yaml")
            .get("/api/v1/mig-configs/all-balanced")
            .then()
            .statusCode(200)
            .contentType(containsString("application/yaml"))
            .extract()
            .asString();
    assertThat(yaml).startsWith("version: v1\nmig-configs:\n  \"all-balanced\":\n");
    // What comes out as YAML imports again as the same config.
    importing(yaml)
        .statusCode(201)
        .body("imported", equalTo(List.of("all-balanced")))
        .body("replaced", equalTo(List.of("all-balanced")));
  }

  @Test
  void aNewConfigIsStoredAndAReimportSaysItReplacedIt() {
    String file = migOn("it-h100-halves", "0x233010DE", "3g.40gb", 2);
    importing(file)
        .statusCode(201)
        .body("imported", equalTo(List.of("it-h100-halves")))
        .body("source", equalTo("api"));
    given()
        .get("/api/v1/mig-configs/it-h100-halves")
        .then()
        .statusCode(200)
        .body("entries[0].migDevices.'3g.40gb'", equalTo(2));
    importing(file).statusCode(201).body("replaced", equalTo(List.of("it-h100-halves")));
  }

  @Test
  void aStrictParseErrorIs422WithLineAndFieldAndStoresNothing() {
    String file =
        """
        version: v1
        mig-configs:
          it-strict-good:
            - devices: all
              mig-enabled: false
          it-strict-bad:
            - devices: all
              mig-enabled: true
              mig-devcies:
                "1g.10gb": 7
        """;
    JsonPath problem =
        importing(file)
            .statusCode(422)
            .contentType("application/problem+json")
            .extract()
            .jsonPath();
    assertThat(problem.getString("type")).endsWith("/invalid-mig-config");
    List<Map<String, Object>> errors = problem.getList("errors");
    assertThat(errors).isNotEmpty();
    assertThat(errors)
        .anySatisfy(
            e -> {
              assertThat(e.get("line")).isEqualTo(9);
              assertThat((String) e.get("field")).contains("mig-devcies");
            });
    given()
        .get("/api/v1/mig-configs/it-strict-good")
        .then()
        .statusCode(404)
        .contentType("application/problem+json")
        .body("detail", containsString("it-strict-good"));
  }

  @Test
  void layoutsThatCannotFitTheirGpuAre422NamingModelAndProfile() {
    assertInvalidLayout(migOn("it-three-halves", "0x233010DE", "3g.40gb", 3), "H100", "3g.40gb");
    assertInvalidLayout(migOn("it-mig-on-l40s", "0x26B910DE", "1g.12gb", 4), "L40S", "1g.12gb");
    assertInvalidLayout(migOn("it-two-me", "0x233010DE", "1g.10gb+me", 2), "H100", "1g.10gb+me");
    given().get("/api/v1/mig-configs/it-three-halves").then().statusCode(404);
  }

  private static void assertInvalidLayout(String file, String model, String profile) {
    JsonPath problem = importing(file).statusCode(422).extract().jsonPath();
    List<String> messages = problem.getList("errors.message", String.class);
    assertThat(messages)
        .as("422 for a layout that cannot fit")
        .anySatisfy(m -> assertThat(m).contains(model).contains(profile));
    assertThat(problem.getList("errors.line", Integer.class)).allMatch(line -> line > 0);
  }

  @Test
  void anUnknownConfigIs404Problem() {
    given()
        .get("/api/v1/mig-configs/no-such-config")
        .then()
        .statusCode(404)
        .contentType("application/problem+json")
        .body("type", containsString("unknown-mig-config"));
  }

  /** POSTs a MIG config file as YAML; the answer, for its status and body to be checked. */
  private static ValidatableResponse importing(String yaml) {
    return given()
        .contentType("application/yaml")
        .body(bytes(yaml))
        .post("/api/v1/mig-configs")
        .then();
  }

  /**
   * A file of one config: MIG on for every GPU the device filter picks, each with {@code count}
   * instances of {@code profile}.
   */
  private static String migOn(String name, String deviceFilter, String profile, int count) {
    return """
        version: v1
        mig-configs:
          %s:
            - device-filter: ["%s"]
              devices: all
              mig-enabled: true
              mig-devices:
                "%s": %d
        """
        .formatted(name, deviceFilter, profile, count);
  }

  /** RestAssured sends a String only for content types it knows; YAML goes as bytes. */
  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static String resource(String path) {
    try (InputStream in = MigConfigsApiIT.class.getClassLoader().getResourceAsStream(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
