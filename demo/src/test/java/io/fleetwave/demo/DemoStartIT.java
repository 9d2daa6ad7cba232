package io.fleetwave.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged demo as {@code ./fleetwave demo} runs it, with nothing configured: it starts its own
 * Kafka and PostgreSQL, says "Fleetwave is ready" only once its whole fleet is visible in the API,
 * and SIGTERM stops everything it started.
 */
class DemoStartIT {
  private static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");

  /** The bundled demo fleet's size. */
  private static final int FLEET_NODES = 222;

  private static final long READY_BOUND_S = 180;
  private static final Pattern OPERATOR_TOKEN = Pattern.compile("operator token[^:]*: (\\S+)");
  private static final Pattern SIGN_IN_LINK = Pattern.compile("sign in[^:]*: (\\S+)");
  private static final long STOP_BOUND_S = 60;

  @TempDir Path dir;

  @Test
  void theReadyLineComesOnceTheWholeFleetIsVisibleAndSigtermStopsEverything() throws Exception {
    int port = freePort();
    Path log = dir.resolve("demo.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    java,
                    "--enable-native-access=ALL-UNNAMED",
                    "-Dquarkus.http.port=" + port,
                    "-jar",
                    JAR.toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().clear(); // nothing configured, as on a fresh machine
    Process demo = builder.start();
    try {
      await("the ready line")
          .atMost(Duration.ofSeconds(READY_BOUND_S))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> !demo.isAlive() || Files.readString(log).contains("Fleetwave is ready"));
      assertThat(demo.isAlive()).as(Files.readString(log)).isTrue();

      String output = Files.readString(log);
      Matcher printed = OPERATOR_TOKEN.matcher(output);
      assertThat(printed.find()).as("an operator token is printed: " + output).isTrue();
      String token = printed.group(1);
      assertThat(visibleNodes(port, "Authorization", "Bearer " + token))
          .as("nodes in the API when the ready line came")
          .isEqualTo(FLEET_NODES);
      assertThat(output).contains("Fleetwave is ready: http://localhost:" + port + "/");
      assertThat(summary(port).statusCode()).as("no token").isEqualTo(401);

      // The sign-in link: the token becomes an HttpOnly, same-site cookie and leaves the URL.
      Matcher link = SIGN_IN_LINK.matcher(output);
      assertThat(link.find()).as("a sign-in link is printed: " + output).isTrue();
      assertThat(link.group(1)).isEqualTo("http://localhost:" + port + "/?token=" + token);
      HttpResponse<String> signIn =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(link.group(1)))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(signIn.statusCode()).isEqualTo(303);
      assertThat(signIn.headers().firstValue("Location")).hasValue("/");
      String cookie = signIn.headers().firstValue("Set-Cookie").orElseThrow();
      assertThat(cookie)
          .startsWith("fleetwave-token=" + token)
          .containsIgnoringCase("HttpOnly")
          .containsIgnoringCase("SameSite=Strict");
      assertThat(visibleNodes(port, "Cookie", cookie.substring(0, cookie.indexOf(';'))))
          .as("the dashboard's requests, signed in by the cookie")
          .isEqualTo(FLEET_NODES);
    } finally {
      demo.destroy(); // SIGTERM, as Ctrl-C or a service manager would
      boolean stopped = demo.waitFor(STOP_BOUND_S, TimeUnit.SECONDS);
      if (!stopped) {
        demo.destroyForcibly();
      }
      assertThat(stopped).as("the demo stopped within %d s of SIGTERM", STOP_BOUND_S).isTrue();
    }
    assertThat(Files.readString(log))
        .contains("embedded Kafka broker stopped", "embedded PostgreSQL stopped");
  }

  private static int visibleNodes(int port, String... headers)
      throws IOException, InterruptedException {
    HttpResponse<String> response = summary(port, headers);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return new ObjectMapper().readTree(response.body()).path("totalNodes").asInt();
  }

  private static HttpResponse<String> summary(int port, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/v1/fleet/summary"))
            .timeout(Duration.ofSeconds(10));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
