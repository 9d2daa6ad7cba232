package io.fleetwave.controlplane.rollout.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.standardwebhooks.Webhook;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The secret's format, and its signature against the Standard Webhooks reference library. */
class WebhookSigningKeyTest {
  private static String secretOf(int bytes) {
    return "whsec_" + Base64.getEncoder().encodeToString(new byte[bytes]);
  }

  @Test
  void theSignatureIsTheOneTheReferenceLibraryComputes() throws Exception {
    String body = "{\"node\":\"gpu-1.example\"}";
    String signature =
        WebhookSigningKey.parse(WebhookDriverExecutorTest.SECRET, "the test")
            .sign("aWQ", 1_764_000_000L, body.getBytes(StandardCharsets.UTF_8));

    assertThat(signature)
        .isEqualTo(new Webhook(WebhookDriverExecutorTest.SECRET).sign("aWQ", 1_764_000_000L, body))
        .startsWith("v1,");
  }

  @Test
  void aSecretOutsideStandardWebhooksBoundsIsRefusedWithoutQuotingIt() {
    assertThat(WebhookSigningKey.parse(secretOf(24), "s")).isNotNull();
    assertThat(WebhookSigningKey.parse(" " + secretOf(64) + "\n", "s")).isNotNull();
    assertThatThrownBy(() -> WebhookSigningKey.parse(secretOf(23), "env X"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "the webhook signing secret from env X holds 23 bytes: expected"
                + " whsec_<base64 of 24 to 64 random bytes>");
    assertThatThrownBy(() -> WebhookSigningKey.parse(secretOf(65), "s"))
        .hasMessageContaining("holds 65 bytes");
    assertThatThrownBy(() -> WebhookSigningKey.parse("correct horse battery staple", "s"))
        .hasMessageContaining("does not start with whsec_")
        .hasMessageNotContaining("horse");
    assertThatThrownBy(() -> WebhookSigningKey.parse("whsec_not*base64", "s"))
        .hasMessageContaining("is not base64 after whsec_")
        .hasMessageNotContaining("not*base64");
  }
}
