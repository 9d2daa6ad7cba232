package io.fleetwave.demo;

import io.fleetwave.embedded.EmbeddedIdentity;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Who may call the demo's API when no identity provider is configured: a stand-in identity made at
 * start ({@link EmbeddedIdentity}), whose public key the control plane's OIDC extension verifies
 * tokens with, and the tokens the demo prints for the person who started it. The tokens go to the
 * console only (standard output, like Jupyter's link), never to a log.
 */
final class DemoIdentity {
  static final Duration LIFETIME = Duration.ofHours(24);
  static final String SUBJECT = "demo-operator";
  static final String ADMIN_SUBJECT = "demo-admin";

  /** Set once by {@link DemoMain} before Quarkus starts; empty when a provider is configured. */
  private static volatile DemoIdentity current;

  final String operatorToken;
  final String adminToken;

  private DemoIdentity(String operatorToken, String adminToken) {
    this.operatorToken = operatorToken;
    this.adminToken = adminToken;
  }

  /**
   * Unless an identity provider or a public key is configured, makes the stand-in identity, points
   * the OIDC extension at it (system properties) and keeps its tokens for the start-up
   * announcement.
   */
  static void configure(Map<String, String> env, Properties system) {
    boolean configured =
        env.containsKey("QUARKUS_OIDC_AUTH_SERVER_URL")
            || env.containsKey("QUARKUS_OIDC_PUBLIC_KEY")
            || system.containsKey("quarkus.oidc.auth-server-url")
            || system.containsKey("quarkus.oidc.public-key");
    if (configured) {
      return;
    }
    EmbeddedIdentity identity = EmbeddedIdentity.generate();
    identity.quarkusProperties().forEach(system::setProperty);
    current =
        new DemoIdentity(
            identity.token(SUBJECT, LIFETIME, "operator"),
            identity.token(ADMIN_SUBJECT, LIFETIME, "admin"));
  }

  static Optional<DemoIdentity> current() {
    return Optional.ofNullable(current);
  }

  /** The lines printed at start: the tokens and the dashboard's sign-in link. */
  String announcement(URI base) {
    String link =
        base.resolve("/?token=" + URLEncoder.encode(operatorToken, StandardCharsets.UTF_8))
            .toString();
    return String.join(
        System.lineSeparator(),
        "operator token (valid " + LIFETIME.toHours() + " h): " + operatorToken,
        "admin token (MIG config import, projection rebuild): " + adminToken,
        "  use: curl -H \"Authorization: Bearer $TOKEN\" "
            + base
            + "api/v1/nodes"
            + "   or   FLEETWAVE_TOKEN=$TOKEN ./fleetwave ctl nodes list",
        "sign in to the dashboard: " + link);
  }
}
