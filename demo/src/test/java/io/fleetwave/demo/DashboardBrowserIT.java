package io.fleetwave.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.openqa.selenium.support.ui.ExpectedConditions.attributeToBe;
import static org.openqa.selenium.support.ui.ExpectedConditions.elementToBeClickable;
import static org.openqa.selenium.support.ui.ExpectedConditions.numberOfElementsToBe;
import static org.openqa.selenium.support.ui.ExpectedConditions.presenceOfElementLocated;
import static org.openqa.selenium.support.ui.ExpectedConditions.textToBe;
import static org.openqa.selenium.support.ui.ExpectedConditions.textToBePresentInElementLocated;
import static org.openqa.selenium.support.ui.ExpectedConditions.urlContains;
import static org.openqa.selenium.support.ui.ExpectedConditions.visibilityOfElementLocated;

import io.fleetwave.controlplane.fixtures.ApiTokens;
import io.fleetwave.demo.fixtures.Browser;
import io.fleetwave.demo.fixtures.Chromium;
import io.fleetwave.demo.fixtures.DashboardFleetProfile;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.Select;

/**
 * The dashboard in a real Chromium against the demo's simulated fleet: the fleet page with its
 * drill-down and drift, a rollout planned and created from the plan preview whose progress bars
 * advance while it is paused and resumed from its page, a node page drawing its MIG slices on the
 * model's memory slices, and what each role is shown. One Quarkus start and one browser for the
 * class; screenshots in target/screenshots.
 */
@ExtendWith(Chromium.class)
@QuarkusTest
@TestProfile(DashboardFleetProfile.class)
class DashboardBrowserIT {
  private static final Duration ROLLOUT_BOUND = Duration.ofSeconds(120);
  private static final String MIG_NODE = "nodeview-h100-0";

  private static Browser browser;

  @TestHTTPResource("/")
  URI base;

  @BeforeEach
  void signedInOnAProjectedFleet() {
    DashboardApiIT.awaitFleetProjected();
    if (browser == null) {
      browser = Browser.start(base);
    }
    browser.signIn(ApiTokens.operator());
  }

  @AfterAll
  static void closeBrowser() {
    if (browser != null) {
      browser.close();
      browser = null;
    }
  }

  /** What one page load may transfer (issue 13: a few hundred KB, at 10,000 nodes too). */
  private static final long PAGE_BUDGET_BYTES = 300_000;

  private static WebDriver page() {
    return browser.driver();
  }

  @Test
  void theFleetPageCountsTheFleetHighlightsDriftAndDrillsDownToAGpu() {
    DashboardApiIT.makeTheOldDriverNodeDrift();

    browser.open("/");
    browser.waitUpTo().until(textToBe(By.id("total-nodes"), "12"));
    assertThat(page().findElement(By.cssSelector("[data-card='host kinds']")).getText())
        .contains("talos: 1", "cos: 1", "vgpu-host: 1", "ubuntu: 7");
    WebElement drifting =
        browser
            .waitUpTo()
            .until(
                visibilityOfElementLocated(
                    By.cssSelector("#versions tr.drift[data-pool='mixed']")));
    assertThat(drifting.getText()).contains("570.172.08");
    assertThat(
            page().findElement(By.cssSelector("#versions tr[data-pool='mixed'] .badge")).getText())
        .isEqualTo("mixed drivers");
    browser.waitUpTo().until(textToBePresentInElementLocated(By.id("pageinfo"), "12 nodes"));
    assertGpuColumnOfTheNodeWithTheMostGpus();
    browser.screenshot("fleet");
    assertWithinBudget("fleet");

    page().findElement(By.cssSelector("#versions a[href='index.html?zone=zone-b']")).click();
    browser.waitUpTo().until(textToBePresentInElementLocated(By.id("crumbs"), "zone zone-b"));
    browser.waitUpTo().until(textToBePresentInElementLocated(By.id("pageinfo"), "· 3 nodes"));

    page()
        .findElement(By.cssSelector("#versions a[href='index.html?zone=zone-b&pool=mixed']"))
        .click();
    browser.waitUpTo().until(textToBePresentInElementLocated(By.id("crumbs"), "pool mixed"));
    browser.waitUpTo().until(textToBePresentInElementLocated(By.id("pageinfo"), "· 2 nodes"));
    assertThat(page().findElements(By.cssSelector("#versions tbody tr")))
        .allSatisfy(row -> assertThat(row.getAttribute("data-pool")).isEqualTo("mixed"));

    page().findElement(By.linkText(DashboardApiIT.OLD_DRIVER_NODE)).click();
    browser.waitUpTo().until(textToBe(By.id("title"), DashboardApiIT.OLD_DRIVER_NODE));
    browser.waitUpTo().until(visibilityOfElementLocated(By.id("gpu-0")));
    assertThat(page().findElement(By.id("crumbs")).getText())
        .isEqualTo("fleet › zone zone-b › pool mixed › " + DashboardApiIT.OLD_DRIVER_NODE);
    assertThat(page().findElement(By.cssSelector("[data-fact='driverVersion']")).getText())
        .contains("570.172.08");
    assertThat(page().findElement(By.id("spec")).getText()).contains("580.105.08");
  }

  /**
   * The time control (issue 35): the fleet and node pages as of a time before any node of the demo
   * had sent an event show no fleet, with a banner naming the time; "now" shows the fleet again.
   */
  @Test
  void theTimeControlShowsTheFleetAsItWasAndNowBringsItBack() {
    Instant beforeTheFleet = firstEventOfTheFleet().minusSeconds(2).truncatedTo(ChronoUnit.SECONDS);

    browser.open("/");
    browser.waitUpTo().until(textToBe(By.id("total-nodes"), "12"));
    assertThat(page().findElements(By.id("as-of-banner"))).isEmpty();
    // The control takes a local date and time, as the browser shows it.
    ((JavascriptExecutor) page())
        .executeScript(
            "const d = new Date(arguments[0]);"
                + " document.getElementById('as-of-input').value ="
                + " new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);",
            beforeTheFleet.toString());
    page().findElement(By.cssSelector("#as-of-form button[type=submit]")).click();
    browser.waitUpTo().until(visibilityOfElementLocated(By.id("as-of-banner")));
    // The control sends the time in UTC (with milliseconds: 06:20:11.000Z).
    assertThat(page().getCurrentUrl())
        .contains("asOf=" + beforeTheFleet.toString().replace(":", "%3A").replace("Z", ".000Z"));
    browser.waitUpTo().until(textToBe(By.id("total-nodes"), "0"));
    browser.waitUpTo().until(textToBePresentInElementLocated(By.id("pageinfo"), "· 0 nodes"));
    browser.screenshot("fleet-as-of");

    page().findElement(By.id("as-of-now")).click();
    browser.waitUpTo().until(textToBe(By.id("total-nodes"), "12"));
    assertThat(page().getCurrentUrl()).doesNotContain("asOf");

    browser.open("/node.html?name=" + MIG_NODE + "&asOf=" + beforeTheFleet);
    browser.waitUpTo().until(textToBePresentInElementLocated(By.id("problem"), "no node named"));
    assertThat(page().findElement(By.id("as-of-banner")).getText())
        .contains(beforeTheFleet.toString());
    page().findElement(By.id("as-of-now")).click();
    browser.waitUpTo().until(textToBe(By.id("title"), MIG_NODE));
    browser.waitUpTo().until(visibilityOfElementLocated(By.id("gpu-0")));
  }

  /** The time of the oldest event any node of the fleet has in its history. */
  private static Instant firstEventOfTheFleet() {
    return given()
        .queryParam("size", "500")
        .get("/api/v1/nodes")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath()
        .<String>getList("items.name")
        .stream()
        .map(
            node ->
                given()
                    .queryParam("size", "500")
                    .get("/api/v1/nodes/{name}/events", node)
                    .then()
                    .statusCode(200)
                    .extract()
                    .jsonPath()
                    .<String>getList("items.time"))
        .flatMap(List::stream)
        .map(Instant::parse)
        .min(Comparator.naturalOrder())
        .orElseThrow();
  }

  @Test
  void aRolloutCreatedFromThePlanPreviewAdvancesWhilePausedAndResumedFromItsPage() {
    browser.open("/plan.html");
    browser
        .waitUpTo()
        .until(
            presenceOfElementLocated(
                By.cssSelector("select[name=migConfig] option[value='all-balanced']")));

    // A request without a target: the API's 422 problem, with the field it names, on the page.
    type("name", "dash-mig");
    page().findElement(By.id("preview")).click();
    WebElement problem =
        browser
            .waitUpTo()
            .until(visibilityOfElementLocated(By.cssSelector(".problem[data-status='422']")));
    assertThat(problem.getText()).contains("Invalid rollout");
    assertThat(problem.findElements(By.cssSelector(".field-errors li"))).isNotEmpty();

    type("selector", "pool=dash");
    new Select(page().findElement(By.name("migConfig"))).selectByValue("all-balanced");
    type("waves", "1, 50%, 100%");
    // Two nodes at once by count, but one GPU of pool dash at once (its nodes have one each).
    type("maxUnavailable", "2");
    type("maxGpusOfflinePer", "pool=1");
    page().findElement(By.id("preview")).click();
    browser.waitUpTo().until(textToBe(By.id("planned-nodes"), "6"));
    assertThat(page().findElements(By.cssSelector("#plan-waves tbody tr"))).hasSize(3);
    assertThat(
            page()
                .findElement(By.cssSelector("#plan-waves tr[data-wave='1'] .gpus-offline"))
                .getText())
        .isEqualTo("1");
    assertThat(
            page()
                .findElement(By.cssSelector("#plan-waves tr[data-wave='2'] .gpus-offline-by"))
                .getText())
        .as("wave 2's two nodes go one at a time: the GPU budget, not maxUnavailable")
        .contains("all: 1", "pool: dash 1", "model: H100-80GB 1");
    assertThat(
            page().findElement(By.cssSelector("#plan-waves tr[data-wave='2'] .expected")).getText())
        .as("measured in earlier rollouts or the stated default")
        .matches("(?s)\\d+(s|m|h\\d{2}m).*");
    assertThat(page().findElements(By.cssSelector("#plan-nodes tbody tr"))).hasSize(6);
    assertThat(page().findElement(By.cssSelector("#plan-nodes tbody tr")).getText())
        .contains("3g.40gb");
    browser.scrollTo(By.id("plan"));
    browser.screenshot("plan");

    page().findElement(By.id("create")).click();
    browser.waitUpTo().until(urlContains("rollout.html?id="));
    browser.waitUpTo().until(numberOfElementsToBe(By.cssSelector("#waves progress"), 3));
    browser.waitUpTo(ROLLOUT_BOUND).until(waveDone(1, 1));

    act("pause", "browser test: hold wave 2");
    browser.waitUpTo().until(presenceOfElementLocated(By.cssSelector("#title .badge.paused")));
    browser
        .waitUpTo()
        .until(
            textToBePresentInElementLocated(
                By.cssSelector("#timeline li[data-type='paused']"), "browser test: hold wave 2"));
    assertThat(button("pause").isEnabled()).isFalse();
    assertThat(button("resume").isEnabled()).isTrue();
    browser.screenshot("rollout-paused");

    act("resume", "browser test: carry on");
    browser
        .waitUpTo()
        .until(presenceOfElementLocated(By.cssSelector("#timeline li[data-type='resumed']")));
    browser
        .waitUpTo(ROLLOUT_BOUND)
        .until(presenceOfElementLocated(By.cssSelector("#title .badge.completed")));
    browser.waitUpTo().until(waveDone(2, 2));
    browser.waitUpTo().until(waveDone(3, 3));
    assertThat(page().findElements(By.cssSelector("#timeline li[data-type='node-succeeded']")))
        .hasSizeGreaterThanOrEqualTo(6);
    // The page renders the summary (badge, waves) before its second read, the nodes' page, answers:
    // on a loaded machine the table showed five of six succeeded just after the badge.
    browser
        .waitUpTo()
        .until(numberOfElementsToBe(By.cssSelector("#nodes tr[data-state='succeeded']"), 6));
    browser.waitUpTo().until(textToBe(By.id("live"), "· finished"));
    for (String action : List.of("pause", "resume", "promote", "abort", "rollback")) {
      assertThat(button(action).isEnabled()).as("%s on a completed rollout", action).isFalse();
    }
    browser.screenshot("rollout");
    assertWithinBudget("rollout");
  }

  @Test
  void theNodePageDrawsEachMigInstanceOnItsModelsMemorySlices() {
    given()
        .contentType(ContentType.JSON)
        .body(
            """
            {"gpus": [{"index": 0, "migEnabled": true,
                       "instances": {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}}]}
            """)
        .put("/api/v1/nodes/{name}/spec", MIG_NODE)
        .then()
        .statusCode(202);
    await("the MIG layout applied on " + MIG_NODE)
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                given()
                        .get("/api/v1/nodes/{name}/spec", MIG_NODE)
                        .then()
                        .extract()
                        .jsonPath()
                        .getBoolean("converged")
                    && given()
                            .get("/api/v1/nodes/{name}", MIG_NODE)
                            .then()
                            .extract()
                            .jsonPath()
                            .getList("gpus[0].instances")
                            .size()
                        == 4);
    List<Map<String, Object>> placements =
        given()
            .get("/api/v1/nodes/{name}", MIG_NODE)
            .then()
            .extract()
            .jsonPath()
            .getList("gpus[0].instances");

    browser.open("/node.html?name=" + MIG_NODE + "#gpu-0");
    browser.waitUpTo().until(numberOfElementsToBe(By.cssSelector("#gpu-0 .mig-slice"), 4));
    WebElement picture = page().findElement(By.cssSelector("#gpu-0 .mig"));
    assertThat(picture.getAttribute("data-memory-slices")).isEqualTo("8");
    double sliceWidth = picture.getSize().getWidth() / 8.0;
    for (Map<String, Object> instance : placements) {
      @SuppressWarnings("unchecked")
      Map<String, Integer> placement = (Map<String, Integer>) instance.get("placement");
      int start = placement.get("start");
      int size = placement.get("size");
      WebElement box =
          picture.findElement(By.cssSelector(".mig-slice[data-start='" + start + "']"));
      assertThat(box.getAttribute("data-profile")).isEqualTo(instance.get("profile"));
      assertThat(box.getText()).contains((String) instance.get("profile"));
      assertThat(box.getCssValue("grid-column-start")).isEqualTo(String.valueOf(start + 1));
      // Drawn where the placement is: its left edge at its first slice, as wide as its slices.
      double left = box.getLocation().getX() - picture.getLocation().getX();
      assertThat(left).isCloseTo(start * sliceWidth, org.assertj.core.data.Offset.offset(4.0));
      assertThat((double) box.getSize().getWidth())
          .isCloseTo(size * sliceWidth, org.assertj.core.data.Offset.offset(6.0));
    }
    assertThat(page().findElements(By.cssSelector("#gpu-1 .mig-slice"))).isEmpty();
    assertThat(page().findElement(By.id("gpu-1")).getText()).contains("MIG disabled");
    assertThat(page().findElement(By.id("steps")).getText()).contains("create-instance");
    browser.waitUpTo().until(presenceOfElementLocated(By.cssSelector("#events li[data-type]")));
    browser.screenshot("node");
    assertWithinBudget("node");
  }

  @Test
  void eachRoleIsShownOnlyWhatItMayDoAndNoTokenIsToldToSignIn() {
    String id = canaryAwaitingPromotion();

    browser.signOut();
    browser.open("/");
    browser.waitUpTo().until(visibilityOfElementLocated(By.id("not-signed-in")));
    assertThat(page().findElement(By.cssSelector("main .problem")).getText())
        .contains("Not signed in");

    browser.signIn(ApiTokens.viewer());
    browser.open("/rollout.html?id=" + id);
    browser.waitUpTo().until(numberOfElementsToBe(By.cssSelector("#waves progress"), 2));
    assertThat(page().findElement(By.id("who")).getText()).contains("test-viewer", "viewer");
    assertThat(page().findElement(By.id("actions")).isDisplayed()).isFalse();
    browser.open("/plan.html");
    browser.waitUpTo().until(textToBePresentInElementLocated(By.id("role-note"), "viewer"));
    assertThat(page().findElement(By.id("create")).isEnabled()).isFalse();

    browser.signIn(ApiTokens.operator());
    browser.open("/rollout.html?id=" + id);
    browser.waitUpTo().until(presenceOfElementLocated(By.id("awaiting")));
    browser.waitUpTo().until(elementToBeClickable(button("promote")));
    assertThat(page().findElement(By.id("actions")).isDisplayed()).isTrue();
    assertThat(button("resume").isEnabled()).isFalse();
    assertThat(button("pause").isEnabled()).isTrue();
    assertThat(button("rollback").isEnabled()).isTrue();
  }

  /** A rollout on the "other" pool whose canary is done and that waits to be promoted: its id. */
  private static String canaryAwaitingPromotion() {
    String id =
        given()
            .contentType(ContentType.JSON)
            .body(
                """
                {"name": "roles-check", "target": {"selector": "pool=other", "gpuModels": ["0x233510DE"]},
                 "change": {"migConfig": "all-balanced"},
                 "strategy": {"waves": ["1", "100%"], "maxUnavailable": "1", "manualPromotion": true,
                              "soakSeconds": 0, "nodeTimeoutSeconds": 300,
                              "failureThreshold": {"perWave": "0", "total": "0", "action": "pause"}}}
                """)
            .post("/api/v1/rollouts")
            .then()
            .statusCode(201)
            .extract()
            .path("id");
    await("rollout roles-check waits for its promotion")
        .atMost(ROLLOUT_BOUND)
        .until(
            () -> {
              JsonPath view = given().get("/api/v1/rollouts/" + id).then().extract().jsonPath();
              return view.getBoolean("progress.awaitingPromotion");
            });
    return id;
  }

  /**
   * The listing reads the brief view (GPUs counted by model): its GPU column of the node with the
   * most GPUs says what that node's own GPUs say ("8× NVIDIA H100 ...", "MIG on 2").
   */
  private static void assertGpuColumnOfTheNodeWithTheMostGpus() {
    List<Map<String, Object>> nodes =
        given()
            .queryParam("size", 100)
            .get("/api/v1/nodes")
            .then()
            .extract()
            .jsonPath()
            .getList("items");
    Map<String, Object> node =
        nodes.stream()
            .max(java.util.Comparator.comparingInt(n -> ((List<?>) n.get("gpus")).size()))
            .orElseThrow();
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> gpus = (List<Map<String, Object>>) node.get("gpus");
    assertThat(gpus).as("a node with several GPUs in the fleet").hasSizeGreaterThan(1);
    long sameProduct =
        gpus.stream().filter(g -> g.get("product").equals(gpus.get(0).get("product"))).count();
    long mig = gpus.stream().filter(g -> "enabled".equals(g.get("migMode"))).count();
    String cell =
        page()
            .findElement(
                By.cssSelector("#nodes tr[data-node='" + node.get("name") + "'] td:nth-child(7)"))
            .getText();
    assertThat(cell)
        .as("the listing's GPU column of " + node.get("name"))
        .contains(sameProduct + "× " + gpus.get(0).get("product"));
    if (mig > 0) {
      assertThat(cell).contains("MIG on " + mig);
    } else {
      assertThat(cell).doesNotContain("MIG on");
    }
  }

  private static void assertWithinBudget(String name) {
    long bytes = browser.bytesTransferred();
    System.out.printf("dashboard %s page transferred %d bytes%n", name, bytes);
    assertThat(bytes).as("bytes the %s page transferred", name).isLessThan(PAGE_BUDGET_BYTES);
  }

  private static void type(String field, String text) {
    WebElement input = page().findElement(By.name(field));
    input.clear();
    input.sendKeys(text);
  }

  private static WebElement button(String action) {
    return page().findElement(By.cssSelector("#actions button[data-action='" + action + "']"));
  }

  /** Clicks the action's button, gives the reason in the confirmation and confirms. */
  private static void act(String action, String reason) {
    browser.waitUpTo().until(elementToBeClickable(button(action))).click();
    WebElement reasonField =
        browser.waitUpTo().until(visibilityOfElementLocated(By.id("confirm-reason")));
    reasonField.sendKeys(reason);
    page().findElement(By.id("confirm-ok")).click();
    browser.waitUpTo().until(visibilityOfElementLocated(By.id("action-done")));
  }

  /** Wave {@code wave}'s progress bar shows {@code done} nodes done. */
  private static ExpectedCondition<Boolean> waveDone(int wave, int done) {
    return attributeToBe(
        By.cssSelector("#waves [data-wave='" + wave + "'] progress"),
        "value",
        String.valueOf(done));
  }
}
