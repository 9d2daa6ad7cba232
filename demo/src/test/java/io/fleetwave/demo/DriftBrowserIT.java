package io.fleetwave.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.openqa.selenium.support.ui.ExpectedConditions.presenceOfElementLocated;
import static org.openqa.selenium.support.ui.ExpectedConditions.textToBe;
import static org.openqa.selenium.support.ui.ExpectedConditions.visibilityOfElementLocated;

import io.fleetwave.controlplane.fixtures.ApiTokens;
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
import org.openqa.selenium.WebElement;

/**
 * The drift page and the node page's change timeline in headless Chromium, over the dashboard's
 * demo fleet: a MIG mode turned on by hand on other-talos-h200-0 is reached from the fleet page's
 * Drift link, shown with what it was and what it is, and on the node page as a change outside
 * Fleetwave; turned back at the end, so the other dashboard tests find the fleet as it was.
 */
@ExtendWith(Chromium.class)
@QuarkusTest
@TestProfile(DashboardFleetProfile.class)
class DriftBrowserIT {
  private static final String NODE = "other-talos-h200-0";

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
    return given()
        .queryParam("cause", "changed-outside")
        .get("/api/v1/drift")
        .then()
        .extract()
        .jsonPath()
        .getList("items.node", String.class)
        .contains(NODE);
  }

  @Test
  void aHandChangeIsOnTheDriftPageFromTheFleetPageAndOnTheNodesTimeline() {
    DashboardApiIT.awaitFleetProjected();
    browser = Browser.start(base);
    browser.signIn(ApiTokens.viewer());
    byHand("enabled");
    await("the hand change in the drift view").atMost(Duration.ofSeconds(30)).until(() -> drifts());
    try {
      browser.open("/");
      browser.waitUpTo().until(visibilityOfElementLocated(By.id("drift-link"))).click();
      browser.waitUpTo().until(textToBe(By.tagName("h1"), "Drift"));
      new org.openqa.selenium.support.ui.Select(browser.driver().findElement(By.name("cause")))
          .selectByVisibleText("changed-outside");
      browser.driver().findElement(By.cssSelector("#filters button")).click();
      WebElement row =
          browser
              .waitUpTo()
              .until(
                  presenceOfElementLocated(By.cssSelector("#drift tr[data-node='" + NODE + "']")));
      assertThat(row.getText())
          .contains("changed-outside", "GPU 0 mig-mode", "disabled", "enabled");
      browser.screenshot("drift");

      row.findElement(By.linkText(NODE)).click();
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
