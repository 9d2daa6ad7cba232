package io.fleetwave.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.openqa.selenium.support.ui.ExpectedConditions.presenceOfElementLocated;
import static org.openqa.selenium.support.ui.ExpectedConditions.textToBe;
import static org.openqa.selenium.support.ui.ExpectedConditions.visibilityOfElementLocated;

import io.fleetwave.controlplane.fixtures.ApiTokens;
import io.fleetwave.controlplane.fixtures.DriftListing;
import io.fleetwave.demo.fixtures.Browser;
import io.fleetwave.demo.fixtures.Chromium;
import io.fleetwave.demo.fixtures.DashboardFleetProfile;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;

/**
 * The drift page and the node page's change timeline in headless Chromium, over the dashboard's
 * demo fleet: a MIG mode turned on by hand on mixed-new-0 is reached from the fleet page's Drift
 * link, shown with what it was and what it is, and on the node page as a change outside Fleetwave;
 * turned back at the end, so the other dashboard tests find the fleet as it was. The node is one no
 * rollout of the other dashboard tests touches (their "other" pool's H200 gets a MIG layout from
 * DashboardBrowserIT's rollout, so a hand change there changed the layout, not the mode).
 */
@ExtendWith(Chromium.class)
@QuarkusTest
@TestProfile(DashboardFleetProfile.class)
class DriftBrowserIT {
  private static final String NODE = "mixed-new-0";

  private static Browser browser;

  @TestHTTPResource("/")
  URI base;

  @AfterAll
  static void closeBrowser() {
    if (browser != null) {
      browser.close();
      browser = null;
    }
  }

  private static void byHand(String migMode) {
    given()
        .contentType(ContentType.JSON)
        .body("{\"gpu\": 0, \"migMode\": \"" + migMode + "\"}")
        .post("/api/v1/simulator/nodes/{name}/by-hand", NODE)
        .then()
        .statusCode(200);
  }

  private static boolean drifts() {
    return !DriftListing.changedOutside(NODE).isEmpty();
  }

  @Test
  void aHandChangeIsOnTheDriftPageFromTheFleetPageAndOnTheNodesTimeline() {
    DashboardApiIT.awaitFleetProjected();
    assertThat(
            given()
                .get("/api/v1/nodes/{name}", NODE)
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getString("gpus[0].migMode"))
        .as("%s's GPU 0 before the hand change", NODE)
        .isEqualTo("disabled");
    browser = Browser.start(base);
    browser.signIn(ApiTokens.viewer());
    byHand("enabled");
    await("the hand change in the drift view").atMost(Duration.ofSeconds(30)).until(() -> drifts());
    try {
      browser.open("/");
      browser.waitUpTo().until(visibilityOfElementLocated(By.id("drift-link"))).click();
      browser.waitUpTo().until(textToBe(By.tagName("h1"), "Drift"));
      // Every cause on the page by default; the row is read in one go, as the page may render
      // it again meanwhile.
      String row =
          browser
              .waitUpTo()
              .ignoring(StaleElementReferenceException.class)
              .until(
                  d -> {
                    String text =
                        d.findElement(By.cssSelector("#drift tr[data-node='" + NODE + "']"))
                            .getText();
                    return text.contains("changed-outside") ? text : null;
                  });
      assertThat(row).contains("GPU 0 mig-mode", "disabled", "enabled");
      browser.screenshot("drift");

      browser
          .waitUpTo()
          .ignoring(StaleElementReferenceException.class)
          .until(
              d -> {
                d.findElement(By.cssSelector("#drift tr[data-node='" + NODE + "']"))
                    .findElement(By.linkText(NODE))
                    .click();
                return true;
              });
      browser.waitUpTo().until(textToBe(By.id("title"), NODE));
      WebElement change =
          browser
              .waitUpTo()
              .until(presenceOfElementLocated(By.cssSelector("#changes li[data-cause='outside']")));
      assertThat(change.getText()).contains("GPU 0 mig-mode", "disabled", "enabled", "drift");
      browser.screenshot("node-changes");
    } finally {
      byHand("disabled");
    }
    await("no drift once turned back").atMost(Duration.ofSeconds(30)).until(() -> !drifts());
  }
}
