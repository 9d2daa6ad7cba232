package io.fleetwave.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.testsupport.processes.JavaCommand;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged demo as {@code ./fleetwave demo} runs it, with nothing configured: it starts its own
 * Kafka and PostgreSQL, says "Fleetwave is ready" only once its whole fleet is visible in the API,
 * in a short banner that ends the console (the services' and Quarkus' logs go to a file it names),
 * serves health on a management port of its own, and SIGTERM stops the application before the
 * services, with a clean exit and not one error line. Its simulated nodes are enrolled agents: node
 * identity is required, as in production, and none of their events is refused.
 */
class DemoStartIT {
  private static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");

  /** The bundled demo fleet's size. */
  private static final int FLEET_NODES = 222;

  private static final long READY_BOUND_S = 180;
  // The embedded services start and stop around the failure: 27 s in a loaded suite on 2026-12-07.
  private static final long FAILED_START_BOUND_S = 120;
  // 69 on 2026-12-07: the demo's lines, Quarkus' early records and the cause's stack trace.
  private static final int FAILED_START_CONSOLE_LINES = 120;
  private static final Pattern READY =
      Pattern.compile("Fleetwave is ready: http://localhost:(\\d+)/");
  private static final Pattern OPERATOR_TOKEN = Pattern.compile("operator token[^:]*: (\\S+)");
  private static final Pattern ADMIN_TOKEN = Pattern.compile("admin token[^:]*: (\\S+)");
  private static final String DEAD_LETTERED = "fleetwave_projection_events_dead_lettered_total";

  /** A node of the bundled fleet. */
  private static final String A_NODE = "ubuntu-a100-40-0";

  /** Longer than the demo's heartbeat interval (10 s): the revoked node's next event comes. */
  private static final Duration NEXT_EVENT_BOUND = Duration.ofSeconds(40);

  private static final Pattern SIGN_IN_LINK = Pattern.compile("sign in[^:]*: (\\S+)");
  private static final long STOP_BOUND_S = 60;
  private static final String BANNER_END = "Ctrl-C stops the demo.";
  private static final Pattern LOG_FILE = Pattern.compile("logs \\([^)]*\\): (\\S+)");
  private static final Pattern HEALTH =
      Pattern.compile("health and metrics: (http://\\S+:(\\d+)\\S*)");

  /** At most this many console lines before the banner (about a thousand before the log file). */
  private static final int LINES_BEFORE_BANNER = 10;

  @TempDir Path dir;

  @Test
  void theReadyLineComesOnceTheWholeFleetIsVisibleAndSigtermStopsEverything() throws Exception {
    Path log = dir.resolve("demo.log");
    // Port 0: the system picks it as Quarkus binds it and the banner names it. A port found free
    // by the test could be taken by one of the suite's other processes before the demo binds it.
    Process demo = start(log, "-Dquarkus.http.port=0");
    try {
      await("the ready line")
          .atMost(Duration.ofSeconds(READY_BOUND_S))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> !demo.isAlive() || Files.readString(log).contains(BANNER_END));
      assertThat(demo.isAlive()).as(Files.readString(log)).isTrue();

      String output = Files.readString(log);
      Matcher ready = READY.matcher(output);
      assertThat(ready.find()).as("the ready line names the port: " + output).isTrue();
      int port = Integer.parseInt(ready.group(1));
      List<String> console = output.lines().toList();
      int banner =
          console.indexOf(
              console.stream()
                  .filter(l -> l.startsWith("Fleetwave is ready"))
                  .findFirst()
                  .orElseThrow());
      assertThat(console.subList(0, banner))
          .as("the console before the banner: the demo's own lines, no service's")
          .hasSizeLessThanOrEqualTo(LINES_BEFORE_BANNER)
          .allSatisfy(line -> assertThat(line).startsWith("fleetwave demo: "));
      assertThat(console.getLast())
          .as("the banner's last line ends the console: " + output)
          .isEqualTo(BANNER_END);
      assertServicesLogged(output);
      int management = assertHealthOnItsOwnPort(output, port);
      Matcher printed = OPERATOR_TOKEN.matcher(output);
      assertThat(printed.find()).as("an operator token is printed: " + output).isTrue();
      String token = printed.group(1);
      assertThat(visibleNodes(port, "Authorization", "Bearer " + token))
          .as("nodes in the API when the ready line came")
          .isEqualTo(FLEET_NODES);
      assertThat(summary(port).statusCode()).as("no token").isEqualTo(401);

      // The sign-in link: the token becomes an HttpOnly, same-site cookie and leaves the URL.
      Matcher link = SIGN_IN_LINK.matcher(output);
      assertThat(link.find()).as("a sign-in link is printed: " + output).isTrue();
      assertThat(link.group(1)).isEqualTo("http://localhost:" + port + "/?token=" + token);
      HttpResponse<String> signIn = get(link.group(1));
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

      // The fleet is signed, and the demo requires it as production does: nothing it sent was
      // refused, and once a node is revoked its next event is.
      assertThat(deadLettered(management)).as("node events dead-lettered").isZero();
      Matcher admin = ADMIN_TOKEN.matcher(output);
      assertThat(admin.find()).as("an admin token is printed: " + output).isTrue();
      HttpResponse<String> revoked = revoke(port, A_NODE, admin.group(1));
      assertThat(revoked.statusCode()).as(revoked.body()).isEqualTo(200);
      assertThat(new ObjectMapper().readTree(revoked.body()).path("revokedKeys").asInt())
          .as("keys %s had enrolled", A_NODE)
          .isEqualTo(1);
      await("the revoked node's next event dead-lettered")
          .atMost(NEXT_EVENT_BOUND)
          .pollInterval(Duration.ofMillis(500))
          .until(() -> deadLettered(management) > 0);
    } finally {
      demo.destroy(); // SIGTERM, as Ctrl-C or a service manager would
      boolean stopped = demo.waitFor(STOP_BOUND_S, TimeUnit.SECONDS);
      if (!stopped) {
        demo.destroyForcibly();
      }
      assertThat(stopped).as("the demo stopped within %d s of SIGTERM", STOP_BOUND_S).isTrue();
    }
    String output = Files.readString(log);
    assertThat(demo.exitValue()).as("exit status after SIGTERM: " + output).isZero();
    assertThat(output.lines())
        .as("the console, stop included")
        .noneMatch(
            l ->
                l.contains("ERROR")
                    || l.contains("Exception")
                    || l.contains("Pool closed")
                    || l.startsWith("\tat "));
    assertThat(output)
        .containsSubsequence(
            "application stopped", "embedded Kafka broker stopped", "embedded PostgreSQL stopped");
  }

  /**
   * A start that fails says why on the console and exits with status 1 (Quarkus logs nothing of a
   * failed start when the caller handles the exit, as the demo does to stop its services after it).
   * Here a setting Quarkus cannot convert, with nothing else configured: the embedded Kafka and
   * PostgreSQL start first, and their start-up records, which Quarkus would write to the console
   * ahead of the cause (2,500 lines, the cause at line 1,985), go to the log file the console
   * names.
   */
  @Test
  void aStartThatFailsSaysWhyAndExitsWithAnError() throws Exception {
    Path log = dir.resolve("failed-demo.log");
    Path file = dir.resolve("failed-demo-file.log");
    Process demo = start(log, "-Dquarkus.http.port=not-a-port", "-Dquarkus.log.file.path=" + file);
    boolean exited = demo.waitFor(FAILED_START_BOUND_S, TimeUnit.SECONDS);
    if (!exited) {
      demo.destroyForcibly();
    }
    String output = Files.readString(log);
    assertThat(exited).as("the demo ended within %d s: %s", FAILED_START_BOUND_S, output).isTrue();
    assertThat(demo.exitValue()).as(output).isEqualTo(1);
    String reported = "fleetwave demo: the application did not start: ";
    assertThat(output).as("the console").contains(reported);
    assertThat(output.substring(output.indexOf(reported)))
        .as("the reason, on the console")
        .contains("quarkus.http.port with the config value \"not-a-port\"");
    assertThat(output.lines())
        .as("the console: the demo's lines, Quarkus' own and the cause, none of the services'")
        .hasSizeLessThanOrEqualTo(FAILED_START_CONSOLE_LINES)
        .noneMatch(line -> line.contains("kafka.") || line.contains("io.zonky."))
        .contains("fleetwave demo: the embedded services' log records are in " + file);
    assertThat(Files.readString(file))
        .as("the log file " + file)
        .contains(
            "[BrokerServer id=0] Transition from STARTING to STARTED",
            "database system is ready to accept connections",
            "[BrokerServer id=0] shutting down");
  }

  private Process start(Path log, String... settings) throws IOException {
    List<String> arguments = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED"));
    arguments.addAll(List.of(settings));
    arguments.addAll(List.of("-jar", JAR.toString()));
    ProcessBuilder builder =
        new ProcessBuilder(JavaCommand.of(arguments))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().clear(); // nothing configured, as on a fresh machine
    return builder.start();
  }

  /** The log file the console names holds the broker's, the database's and Quarkus' own logs. */
  private static void assertServicesLogged(String output) throws IOException {
    Matcher named = LOG_FILE.matcher(output);
    assertThat(named.find()).as("the log file is named: " + output).isTrue();
    String logged = Files.readString(Path.of(named.group(1)));
    assertThat(logged)
        .as("the log file " + named.group(1))
        .contains(
            "[BrokerServer id=0] Transition from STARTING to STARTED",
            "database system is ready to accept connections",
            "Fleetwave is ready");
  }

  /** Health on the management port the banner names: a port of this demo's, not the fixed 9000. */
  private static int assertHealthOnItsOwnPort(String output, int port)
      throws IOException, InterruptedException {
    Matcher health = HEALTH.matcher(output);
    assertThat(health.find()).as("the health URL is printed: " + output).isTrue();
    assertThat(Integer.parseInt(health.group(2))).isNotIn(port, 9000);
    HttpResponse<String> answer = get(health.group(1));
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return Integer.parseInt(health.group(2));
  }

  /** A GET without redirects followed (the sign-in link's answer is the redirect). */
  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
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

  /** The projection's count of refused node events, from the metrics. */
  private static double deadLettered(int management) throws IOException, InterruptedException {
    HttpResponse<String> metrics =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + management + "/q/metrics"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.statusCode()).isEqualTo(200);
    return metrics
        .body()
        .lines()
        .filter(line -> line.startsWith(DEAD_LETTERED))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .sum();
  }

  private static HttpResponse<String> revoke(int port, String node, String adminToken)
      throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://localhost:" + port + "/api/v1/nodes/" + node + "/enrolment"))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + adminToken)
                .DELETE()
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
