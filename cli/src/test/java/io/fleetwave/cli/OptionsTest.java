package io.fleetwave.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class OptionsTest {
  private static Fleetctl parsed(Map<String, String> env, String... args) {
    Fleetctl fleetctl = new Fleetctl(env);
    new CommandLine(fleetctl).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
    return fleetctl;
  }

  @Test
  void serverAndTokenComeFromOptionsThenEnvironmentThenDefault() {
    assertThat(parsed(Map.of(), "nodes", "list").serverUrl()).isEqualTo("http://localhost:8080");
    assertThat(parsed(Map.of(), "nodes", "list").tokenValue()).isNull();
    Map<String, String> env = Map.of("FLEETWAVE_URL", "http://env:1", "FLEETWAVE_TOKEN", "t-env");
    assertThat(parsed(env, "nodes", "list").serverUrl()).isEqualTo("http://env:1");
    assertThat(parsed(env, "nodes", "list").tokenValue()).isEqualTo("t-env");
    Fleetctl explicit =
        parsed(env, "--server", "http://opt:2", "--token", "t-opt", "nodes", "list");
    assertThat(explicit.serverUrl()).isEqualTo("http://opt:2");
    assertThat(explicit.tokenValue()).isEqualTo("t-opt");
  }

  @Test
  void globalOptionsAreAcceptedAfterTheSubcommand() {
    Fleetctl fleetctl =
        parsed(Map.of(), "rollout", "status", "x", "-o", "YAML", "--server", "http://after:3");
    assertThat(fleetctl.serverUrl()).isEqualTo("http://after:3");
    assertThat(fleetctl.output()).isEqualTo(OutputFormat.yaml);
  }

  @Test
  void usageErrorsExitWith2() {
    Run unknown = Run.of("nodes", "frobnicate");
    assertThat(unknown.exit()).as(unknown.toString()).isEqualTo(2);
    Run badFormat = Run.of("-o", "xml", "nodes", "list");
    assertThat(badFormat.exit()).as(badFormat.toString()).isEqualTo(2);
    assertThat(badFormat.err()).contains("xml");
    Run noReason = Run.of("rollout", "abort", "some-id");
    assertThat(noReason.exit()).as(noReason.toString()).isEqualTo(2);
    assertThat(noReason.err()).contains("--reason");
    Run noFile = Run.of("rollout", "plan", "-f", "/nonexistent/rollout.yaml");
    assertThat(noFile.exit()).as(noFile.toString()).isEqualTo(2);
    assertThat(noFile.err()).contains("cannot read /nonexistent/rollout.yaml: no such file");
    Run badUrl = Run.of("--server", "localhost:8080", "nodes", "list");
    assertThat(badUrl.exit()).as(badUrl.toString()).isEqualTo(2);
    assertThat(badUrl.err()).contains("--server must be an http:// or https:// URL");
  }

  @Test
  void helpListsTheEnvironmentAndTheExitCodes() {
    Run help = Run.of("--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out())
        .contains("Environment:", "  FLEETWAVE_URL     the API's base URL")
        .contains("  FLEETWAVE_TOKEN   bearer token")
        .contains("Exit codes:", "  2  usage error", "  3  rollout status --watch")
        .contains("nodes", "rollout", "spec", "mig-configs");
  }

  @Test
  void everySubcommandAnswersHelpWithItsOwnUsage() {
    Run pause = Run.of("rollout", "pause", "--help");
    assertThat(pause.exit()).as(pause.toString()).isZero();
    assertThat(pause.out()).contains("Usage: fleetctl rollout pause", "--reason", "-h, --help");
    Run list = Run.of("nodes", "list", "-h");
    assertThat(list.exit()).as(list.toString()).isZero();
    assertThat(list.out()).contains("Usage: fleetctl nodes list", "--selector");
    Run helpCommand = Run.of("help", "audit");
    assertThat(helpCommand.exit()).as(helpCommand.toString()).isZero();
    assertThat(helpCommand.out()).contains("Usage: fleetctl audit", "--actor");
  }

  @Test
  void aServerThatRefusesConnectionsIsNamedAndExitsWith1() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Run run = Run.of("--server", "http://127.0.0.1:" + port, "nodes", "list");
    assertThat(run.exit()).as(run.toString()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "error: cannot reach the Fleetwave API at http://127.0.0.1:"
                + port
                + ": connection refused (set --server or FLEETWAVE_URL)\n");
  }

  @Test
  void aServerThatNeverAnswersIsBoundedByTheRequestTimeout() throws IOException {
    try (ServerSocket silent = new ServerSocket(0)) { // accepts (backlog), never answers
      long start = System.nanoTime();
      Run run =
          Run.of(
              "--server",
              "http://127.0.0.1:" + silent.getLocalPort(),
              "--request-timeout",
              "1",
              "nodes",
              "get",
              "n1");
      assertThat(run.exit()).as(run.toString()).isEqualTo(1);
      assertThat(run.err()).contains("no answer to GET /api/v1/nodes/n1 within 1 s");
      assertThat(System.nanoTime() - start).isLessThan(10_000_000_000L);
    }
  }
}
