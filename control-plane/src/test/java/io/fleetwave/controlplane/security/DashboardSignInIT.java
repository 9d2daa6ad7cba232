package io.fleetwave.controlplane.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.OidcProviderStandIn;
import io.fleetwave.controlplane.fixtures.TestRsaKeys;
import io.fleetwave.embedded.EmbeddedIdentity;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.testsupport.services.KafkaExtension;
import io.fleetwave.testsupport.services.PostgresExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged control plane with an OIDC provider and the dashboard's sign-in on, configured only
 * through the environment as the Deployment does: a browser without a session is sent to the
 * provider's authorization endpoint, while the API stays bearer-only (401 without a token, never a
 * redirect; 200 with one the provider issued for Fleetwave, with Fleetwave's client role; 401 for
 * its tokens for another audience, 403 for a role the realm gives).
 */
@ExtendWith({KafkaExtension.class, PostgresExtension.class})
class DashboardSignInIT {
  private static final Path APP = Path.of("target", "quarkus-app");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

  @TempDir Path dir;

  @Test
  void aBrowserIsSentToTheProviderAndTheApiStaysBearerOnly(
      KafkaBroker kafka, EmbeddedPostgres postgres) throws Exception {
    FleetTopics.create(kafka);
    try (OidcProviderStandIn provider = OidcProviderStandIn.start();
        ControlPlaneProcess controlPlane =
            ControlPlaneProcess.start(
                APP,
                0,
                ControlPlaneProcess.settings(
                    kafka,
                    postgres,
                    Map.of(
                        "QUARKUS_OIDC_AUTH_SERVER_URL",
                        provider.url(),
                        "QUARKUS_OIDC_CLIENT_ID",
                        "fleetwave",
                        "QUARKUS_OIDC_CREDENTIALS_SECRET",
                        "client-secret-it",
                        "QUARKUS_OIDC_DASHBOARD_TENANT_ENABLED",
                        "true")),
                dir.resolve("control-plane.log"))) {
      HttpResponse<String> page = get(controlPlane.port(), "/", null);
      assertThat(page.statusCode()).as(page.body()).isEqualTo(302);
      URI signIn = URI.create(page.headers().firstValue("Location").orElseThrow());
      assertThat(signIn.toString()).startsWith(provider.url() + "/authorize?");
      assertThat(signIn.getQuery())
          .contains("response_type=code", "client_id=fleetwave", "redirect_uri=http://localhost:");

      assertThat(get(controlPlane.port(), "/api/v1/nodes", null).statusCode()).isEqualTo(401);
      String token = provider.identity().token("alice", Duration.ofMinutes(5), "viewer");
      HttpResponse<String> nodes = get(controlPlane.port(), "/api/v1/nodes", token);
      assertThat(nodes.statusCode()).as(nodes.body()).isEqualTo(200);
      // The provider's tokens for other applications, or for no one in particular, are not
      // Fleetwave's; nor is a realm-wide role one of Fleetwave's roles.
      Map<String, Object> viewerRole =
          Map.of("resource_access", EmbeddedIdentity.clientRoles("fleetwave", "viewer"));
      String noAudience = provider.identity().token("alice", Duration.ofMinutes(5), viewerRole);
      HttpResponse<String> refused = get(controlPlane.port(), "/api/v1/nodes", noAudience);
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(401);
      assertThat(refused.body()).contains("another audience");
      String realmViewer =
          provider
              .identity()
              .token(
                  "alice",
                  Duration.ofMinutes(5),
                  Map.of("aud", "fleetwave", "realm_access", Map.of("roles", List.of("viewer"))));
      assertThat(get(controlPlane.port(), "/api/v1/nodes", realmViewer).statusCode())
          .isEqualTo(403);
      String stranger =
          TestRsaKeys.identity(TestRsaKeys.STRANGER, provider.url())
              .token("mallory", Duration.ofMinutes(5), "viewer");
      assertThat(get(controlPlane.port(), "/api/v1/nodes", stranger).statusCode()).isEqualTo(401);
    }
  }

  private static HttpResponse<String> get(int port, String path, String token)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .header("Accept", path.startsWith("/api/") ? "application/json" : "text/html");
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
