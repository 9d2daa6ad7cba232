package io.fleetwave.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;

import io.fleetwave.controlplane.fixtures.ApiTokens;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.demo.fixtures.DashboardFleetProfile;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The read endpoints the dashboard pages need, over the simulated dashboard fleet: the version
 * distribution with drift, the caller's roles, the GPU catalogue's MIG geometry, nodes by zone.
 */
@QuarkusTest
@TestProfile(DashboardFleetProfile.class)
class DashboardApiIT {
  static final String OLD_DRIVER_NODE = "mixed-old-0";

  @TestHTTPResource("/")
  URI base;

  @BeforeEach
  void fleetIsProjected() {
    awaitFleetProjected();
  }

  static void awaitFleetProjected() {
    ProjectionRows.awaitCount(
        "the simulated dashboard fleet is projected",
        Duration.ofSeconds(90),
        "SELECT count(*) FROM nodes WHERE driver_version IS NOT NULL",
        DashboardFleetProfile.NODES);
  }

  /**
   * Asks {@value #OLD_DRIVER_NODE} (driver 570) for driver 580.105.08, which no agent installs by
   * itself: the node drifts from its desired state until a driver rollout changes it. Returns once
   * the version distribution counts it drifting (its pool's 570 row), which the projection writes a
   * moment later.
   */
  static void makeTheOldDriverNodeDrift() {
    given()
        .contentType(ContentType.JSON)
        .body("{\"driverVersion\": \"580.105.08\"}")
        .put("/api/v1/nodes/{name}/spec", OLD_DRIVER_NODE)
        .then()
        .statusCode(202);
    await("the mixed pool shows its old-driver node drifting")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                given()
                    .queryParam("zone", "zone-b")
                    .queryParam("pool", "mixed")
                    .get("/api/v1/fleet/versions")
                    .then()
                    .statusCode(200)
                    .extract()
                    .jsonPath()
                    .<Integer>getList("findAll { it.driverVersion == '570.172.08' }.drifted")
                    .equals(List.of(1)));
  }

  @Test
  void theVersionDistributionCountsEachPoolsVersionsAndItsDrift() {
    makeTheOldDriverNodeDrift();

    List<Map<String, Object>> mixed =
        given()
            .queryParam("zone", "zone-b")
            .queryParam("pool", "mixed")
            .get("/api/v1/fleet/versions")
            .then()
            .extract()
            .jsonPath()
            .getList("$");
    assertThat(mixed)
        .extracting(
            row -> row.get("driverVersion"), row -> row.get("nodes"), row -> row.get("drifted"))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("570.172.08", 1, 1),
            org.assertj.core.groups.Tuple.tuple("580.95.05", 1, 0));
    assertThat(mixed).allSatisfy(row -> assertThat(row.get("os")).isNotNull());

    List<Integer> everyPool =
        given().get("/api/v1/fleet/versions").then().extract().jsonPath().getList("nodes");
    assertThat(everyPool.stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(DashboardFleetProfile.NODES);
  }

  @ParameterizedTest
  @CsvSource({"viewer, test-viewer", "operator, test-operator"})
  void whoamiNamesTheCallerAndOnlyItsRoles(String role, String subject) {
    whoami(ApiTokens.of(role))
        .statusCode(200)
        .body("subject", equalTo(subject))
        .body("roles", contains(role));
  }

  @Test
  void whoamiRefusesATokenWithoutARole() {
    whoami(ApiTokens.of("no-role")).statusCode(403);
  }

  private static ValidatableResponse whoami(String token) {
    return given()
        .header("Authorization", ApiTokens.bearer(token))
        .get("/api/v1/security/whoami")
        .then();
  }

  /**
   * The sign-in cookie rides along with any request a same-site page (or, for a lax cookie, any
   * page) makes the browser send; a change with no body needs no content type and so no preflight.
   * Pause, abort, rollback and the projection rebuild sent that way, with the cookie only, are
   * refused unless the browser says the request comes from the dashboard's own origin.
   */
  @Test
  void aCookieOnlyChangeWithoutBodyIsRefusedFromAnotherOrigin() throws Exception {
    String cookie = DashboardSignIn.COOKIE + "=" + ApiTokens.admin();
    String self = "http://" + base.getHost() + ":" + base.getPort();
    List<String> changes =
        List.of(
            "/api/v1/rollouts/" + UUID.randomUUID() + "/pause",
            "/api/v1/rollouts/" + UUID.randomUUID() + "/abort",
            "/api/v1/rollouts/" + UUID.randomUUID() + "/rollback",
            "/api/v1/admin/projection/rebuild?timeoutSeconds=0");
    List<Map<String, String>> crossSite =
        List.of(
            Map.of("Origin", "http://evil." + base.getHost(), "Sec-Fetch-Site", "same-site"),
            Map.of("Origin", "https://attacker.example"),
            Map.of("Origin", "http://" + base.getHost() + ":" + (base.getPort() + 1)),
            Map.of("Origin", "null"),
            Map.of());
    for (String change : changes) {
      for (Map<String, String> headers : crossSite) {
        HttpResponse<String> refused = postWithoutBody(change, cookie, headers);
        assertThat(refused.statusCode()).as(change + " with " + headers).isEqualTo(403);
        assertThat(refused.body()).contains("own origin");
      }
      for (Map<String, String> headers :
          List.of(
              Map.of("Origin", self, "Sec-Fetch-Site", "same-origin"), Map.of("Origin", self))) {
        HttpResponse<String> accepted = postWithoutBody(change, cookie, headers);
        assertThat(accepted.statusCode())
            .as(change + " from the dashboard's origin: " + accepted.body())
            .isNotIn(401, 403, 415)
            .isLessThan(500);
      }
    }
  }

  /** The sign-in link turns only a token the API accepts into the sign-in cookie. */
  @Test
  void theSignInLinkSetsItsCookieOnlyForATokenTheApiAccepts() throws Exception {
    HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    for (String token :
        List.of(
            "not-a-token",
            "x; Path=/; Domain=elsewhere.example",
            ApiTokens.of("expired"),
            ApiTokens.of("other-key"),
            ApiTokens.of("other-audience"))) {
      HttpResponse<String> refused = signIn(http, token);
      assertThat(refused.statusCode()).as(token).isEqualTo(401);
      assertThat(refused.headers().firstValue("Set-Cookie")).as(token).isEmpty();
      assertThat(refused.body()).contains("not one this control plane accepts");
    }
    HttpResponse<String> signedIn = signIn(http, ApiTokens.viewer());
    assertThat(signedIn.statusCode()).isEqualTo(303);
    assertThat(signedIn.headers().firstValue("Set-Cookie"))
        .hasValueSatisfying(
            cookie ->
                assertThat(cookie).startsWith(DashboardSignIn.COOKIE + "=" + ApiTokens.viewer()));
  }

  private HttpResponse<String> signIn(HttpClient http, String token) throws Exception {
    URI link = base.resolve("/?token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
    return http.send(
        HttpRequest.newBuilder(link).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> postWithoutBody(
      String path, String cookie, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Cookie", cookie)
            .POST(HttpRequest.BodyPublishers.noBody());
    headers.forEach(request::header);
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theGpuCatalogueGivesEachModelsMigGeometry() {
    var models = given().get("/api/v1/gpu-models").then().statusCode(200).extract().jsonPath();
    assertThat(models.getInt("find { it.pciDeviceIds.contains('0x233010DE') }.mig.memorySlices"))
        .isEqualTo(8);
    assertThat(
            models.getInt(
                "find { it.pciDeviceIds.contains('0x233010DE') }.mig.profiles"
                    + ".find { it.name == '3g.40gb' }.memorySlices"))
        .isEqualTo(4);
    assertThat(models.getString("find { it.pciDeviceIds.contains('0x27B810DE') }.mig")).isNull();
  }

  @Test
  void nodesFilterByTheirZone() {
    given()
        .queryParam("zone", "zone-c")
        .get("/api/v1/nodes")
        .then()
        .statusCode(200)
        .body("total", equalTo(3))
        .body("items.zone", everyItem(equalTo("zone-c")));
    given()
        .queryParam("zone", "zone-b")
        .queryParam("selector", "pool=mixed")
        .get("/api/v1/nodes")
        .then()
        .body("items.name", contains("mixed-new-0", "mixed-old-0"));
    given().queryParam("zone", "nowhere").get("/api/v1/nodes").then().body("total", equalTo(0));
  }
}
