package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * What the simulated fleet's driver webhook refuses before it reaches any node: requests it cannot
 * verify. (That it verifies what the control plane's executor signs, and installs, the system tier
 * proves against the packaged control plane.)
 */
class DriverWebhookTest {
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
  private static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString(KEY);
  private static final Instant NOW = Instant.parse("2026-12-05T02:00:00Z");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final String BODY = "{\"node\": \"n-1\", \"toVersion\": \"580.95.05\"}";

  @Test
  void unsignedForgedOrStaleRequestsAreRefusedNamingWhy() throws Exception {
    try (DriverWebhook webhook =
        DriverWebhook.start(0, SECRET, null, Duration.ZERO, Clock.fixed(NOW, ZoneOffset.UTC))) {
      HttpResponse<String> unsigned = post(webhook, null, NOW, BODY);
      assertThat(unsigned.statusCode()).isEqualTo(401);
      assertThat(unsigned.body()).contains("webhook-signature are required");

      String forged = sign("another-secret-entirely-32-bytes".getBytes(StandardCharsets.UTF_8));
      HttpResponse<String> refused = post(webhook, forged, NOW, BODY);
      assertThat(refused.statusCode()).isEqualTo(401);
      assertThat(refused.body()).isEqualTo("no webhook-signature matches the body");

      HttpResponse<String> tampered = post(webhook, sign(KEY), NOW, BODY.replace("n-1", "n-2"));
      assertThat(tampered.statusCode()).isEqualTo(401);

      Instant stale = NOW.minus(Duration.ofMinutes(6));
      HttpResponse<String> old = post(webhook, signAt(KEY, stale), stale, BODY);
      assertThat(old.statusCode()).isEqualTo(401);
      assertThat(old.body()).contains("outside the tolerance");
    }
  }

  @Test
  void aSecretThatIsNotWhsecIsRefusedAtStart() {
    assertThatThrownBy(
            () -> DriverWebhook.start(0, "not-a-secret", null, Duration.ZERO, Clock.systemUTC()))
        .hasMessage("the driver webhook's secret must start with whsec_");
  }

  private static String sign(byte[] key) throws Exception {
    return signAt(key, NOW);
  }

  private static String signAt(byte[] key, Instant at) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    mac.update(("id-1." + at.getEpochSecond() + ".").getBytes(StandardCharsets.UTF_8));
    return "v1,"
        + Base64.getEncoder().encodeToString(mac.doFinal(BODY.getBytes(StandardCharsets.UTF_8)));
  }

  private static HttpResponse<String> post(
      DriverWebhook webhook, String signature, Instant at, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + webhook.port() + "/"))
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (signature != null) {
      request
          .header("webhook-id", "id-1")
          .header("webhook-timestamp", Long.toString(at.getEpochSecond()))
          .header("webhook-signature", signature);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
