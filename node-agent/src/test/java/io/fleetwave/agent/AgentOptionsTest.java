package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {
  private static final Map<String, String> NO_ENV = Map.of();

  private static AgentOptions parse(Map<String, String> env, String... args) {
    return AgentOptions.parse(args, env);
  }

  @Test
  void theNodeNameComesFromNodeNameWhenNoOptionIsGiven() {
    AgentOptions options = parse(Map.of("NODE_NAME", "gpu-node-7"), "--bootstrap", "k:9092");

    assertThat(options.nodeName()).contains("gpu-node-7");
  }

  @Test
  void theNodeNameOptionWinsOverNodeName() {
    AgentOptions options =
        parse(Map.of("NODE_NAME", "from-env"), "--bootstrap", "k:9092", "--node-name", "from-flag");

    assertThat(options.nodeName()).contains("from-flag");
  }

  @Test
  void withoutANodeNameTheProbeFindsOne() {
    assertThat(parse(NO_ENV, "--bootstrap", "k:9092").nodeName()).isEmpty();
    assertThat(parse(Map.of("NODE_NAME", "  "), "--bootstrap", "k:9092").nodeName()).isEmpty();
  }

  @Test
  void aNodeNameOptionWithoutAValueIsRefused() {
    assertThatThrownBy(() -> parse(NO_ENV, "--bootstrap", "k:9092", "--node-name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--node-name needs a value");
  }

  @Test
  void aJoinTokenOnTheCommandLineIsRefusedWhateverItsValue() {
    for (String value : new String[] {"fwj_0123456789abcdef", "/etc/fleetwave/join-token"}) {
      assertThatThrownBy(
              () -> parse(NO_ENV, "--bootstrap", "k:9092", "--join-token", value, "--zone", "a"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("--join-token is not accepted")
          .hasMessageContaining("--join-token-file FILE", "FLEETWAVE_JOIN_TOKEN")
          .hasMessageNotContaining(value);
    }
  }

  @Test
  void aControlPlaneCaComesWithAnHttpsControlPlaneOnly() {
    AgentOptions https =
        parse(
            Map.of("FLEETWAVE_CONTROL_PLANE_CA", "/etc/fleetwave/control-plane-ca/ca.crt"),
            "--bootstrap",
            "k:9092",
            "--control-plane",
            "https://fleetwave-control-plane.fleetwave.svc:8443");
    assertThat(https.controlPlaneCa())
        .contains(java.nio.file.Path.of("/etc/fleetwave/control-plane-ca/ca.crt"));
    assertThat(parse(NO_ENV, "--bootstrap", "k:9092").controlPlaneCa()).isEmpty();

    for (String[] args :
        new String[][] {
          {"--bootstrap", "k:9092", "--control-plane-ca", "/ca.crt"},
          {
            "--bootstrap",
            "k:9092",
            "--control-plane-ca",
            "/ca.crt",
            "--control-plane",
            "http://cp:8080"
          }
        }) {
      assertThatThrownBy(() -> parse(NO_ENV, args))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("--control-plane-ca needs an https:// --control-plane");
    }
  }

  @Test
  void aJoinTokenComesFromAFileOrTheEnvironment() {
    AgentOptions fromFile =
        parse(NO_ENV, "--bootstrap", "k:9092", "--join-token-file", "/etc/fleetwave/join-token");
    assertThat(fromFile.joinTokenFile())
        .contains(java.nio.file.Path.of("/etc/fleetwave/join-token"));
    assertThat(fromFile.joinToken()).isEmpty();

    AgentOptions fileFromEnv =
        parse(Map.of("FLEETWAVE_JOIN_TOKEN_FILE", "/run/token"), "--bootstrap", "k:9092");
    assertThat(fileFromEnv.joinTokenFile()).contains(java.nio.file.Path.of("/run/token"));

    AgentOptions fromEnv =
        parse(Map.of("FLEETWAVE_JOIN_TOKEN", " fwj_secret \n"), "--bootstrap", "k:9092");
    assertThat(fromEnv.joinToken()).contains("fwj_secret");
    assertThat(fromEnv.joinTokenFile()).isEmpty();

    assertThatThrownBy(
            () ->
                parse(
                    Map.of("FLEETWAVE_JOIN_TOKEN", "fwj_secret"),
                    "--bootstrap",
                    "k:9092",
                    "--join-token-file",
                    "/run/token"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not both");
  }

  @Test
  void unknownOptionsAreRefusedByName() {
    assertThatThrownBy(() -> parse(NO_ENV, "--bootstrap", "k:9092", "--nodename", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown option --nodename");
  }

  @Test
  void theKafkaConfigOptionWinsOverItsVariable() {
    AgentOptions options =
        parse(
            Map.of("FLEETWAVE_KAFKA_CONFIG", "/etc/env.properties"),
            "--kafka-config",
            "/etc/flag.properties");

    assertThat(options.kafkaConfig()).contains(java.nio.file.Path.of("/etc/flag.properties"));
    assertThat(parse(Map.of("FLEETWAVE_KAFKA_CONFIG", "/etc/env.properties")).kafkaConfig())
        .contains(java.nio.file.Path.of("/etc/env.properties"));
  }

  @Test
  void aKafkaConfigFileStandsInForTheBootstrapOption() {
    assertThat(parse(NO_ENV, "--kafka-config", "/etc/k.properties").bootstrapServers()).isEmpty();
  }

  @Test
  void withoutBootstrapOrKafkaConfigTheAgentRefusesToStart() {
    assertThatThrownBy(() -> parse(NO_ENV, "--host-root", "/host"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--bootstrap HOST:PORT")
        .hasMessageContaining("--kafka-config");
  }

  @Test
  void zoneAndLabelsOptionsWinOverTheirVariables() {
    Map<String, String> env = Map.of("FLEETWAVE_ZONE", "env-zone", "FLEETWAVE_LABELS", "a=env");

    AgentOptions fromFlags =
        parse(env, "--bootstrap", "k:9092", "--zone", "flag-zone", "--labels", "a=flag,b=2");
    AgentOptions fromEnv = parse(env, "--bootstrap", "k:9092");

    assertThat(fromFlags.zone()).contains("flag-zone");
    assertThat(fromFlags.labels()).contains(Map.of("a", "flag", "b", "2"));
    assertThat(fromEnv.zone()).contains("env-zone");
    assertThat(fromEnv.labels()).contains(Map.of("a", "env"));
  }

  @Test
  void zoneAndLabelsNotGivenAreLeftOpenForTheNodeObject() {
    AgentOptions options = parse(NO_ENV, "--bootstrap", "k:9092");

    assertThat(options.zone()).isEmpty();
    assertThat(options.labels()).isEmpty();
    assertThat(options.nodeLabelPrefixes()).isEmpty();
  }

  @Test
  void nodeLabelPrefixesAreACommaSeparatedList() {
    assertThat(
            parse(
                    Map.of("FLEETWAVE_NODE_LABEL_PREFIXES", "x/"),
                    "--bootstrap",
                    "k:9092",
                    "--node-label-prefixes",
                    "nvidia.com/, topology.kubernetes.io/,")
                .nodeLabelPrefixes())
        .containsExactly("nvidia.com/", "topology.kubernetes.io/");
    assertThat(
            parse(Map.of("FLEETWAVE_NODE_LABEL_PREFIXES", "x/"), "--bootstrap", "k:9092")
                .nodeLabelPrefixes())
        .containsExactly("x/");
  }

  @Test
  void aLabelThatIsNotKeyValueIsRefused() {
    assertThatThrownBy(() -> parse(NO_ENV, "--bootstrap", "k:9092", "--labels", "pool"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("label 'pool' is not key=value");
  }

  @Test
  void theClockSkewToleranceIsSixtySecondsUnlessConfigured() {
    assertThat(parse(NO_ENV, "--bootstrap", "k:9092").clockSkew())
        .isEqualTo(java.time.Duration.ofSeconds(60));
    assertThat(
            parse(Map.of("FLEETWAVE_CLOCK_SKEW_SECONDS", "5"), "--bootstrap", "k:9092").clockSkew())
        .isEqualTo(java.time.Duration.ofSeconds(5));
    assertThat(
            parse(
                    Map.of("FLEETWAVE_CLOCK_SKEW_SECONDS", "5"),
                    "--bootstrap",
                    "k:9092",
                    "--clock-skew-seconds",
                    "0")
                .clockSkew())
        .isZero();
  }

  @Test
  void aClockSkewOutOfRangeIsRefusedWithTheBounds() {
    assertThatThrownBy(() -> parse(NO_ENV, "--bootstrap", "k:9092", "--clock-skew-seconds", "-1"))
        .hasMessage("--clock-skew-seconds must be between 0 and 3600, got -1");
    assertThatThrownBy(() -> parse(NO_ENV, "--bootstrap", "k:9092", "--clock-skew-seconds", "1m"))
        .hasMessage("--clock-skew-seconds must be a whole number of seconds, got 1m");
  }

  @Test
  void metricsAreOffUnlessAPortIsGivenAndListenOnAllAddressesByDefault() {
    AgentOptions off = parse(NO_ENV, "--bootstrap", "k:9092");
    assertThat(off.metricsPort()).isEmpty();
    assertThat(off.metricsAddress()).isEqualTo("0.0.0.0");

    AgentOptions fromEnv = parse(Map.of("FLEETWAVE_METRICS_PORT", "9400"), "--bootstrap", "k:9092");
    assertThat(fromEnv.metricsPort()).hasValue(9400);

    AgentOptions fromFlags =
        parse(
            Map.of("FLEETWAVE_METRICS_PORT", "9400"),
            "--bootstrap",
            "k:9092",
            "--metrics-port",
            "0",
            "--metrics-address",
            "127.0.0.1");
    assertThat(fromFlags.metricsPort()).hasValue(0);
    assertThat(fromFlags.metricsAddress()).isEqualTo("127.0.0.1");
  }

  @Test
  void aMetricsPortThatIsNoPortIsRefusedNamingIt() {
    assertThatThrownBy(() -> parse(NO_ENV, "--bootstrap", "k:9092", "--metrics-port", "http"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--metrics-port must be a port number (0-65535), got http");
    assertThatThrownBy(
            () -> parse(Map.of("FLEETWAVE_METRICS_PORT", "70000"), "--bootstrap", "k:9092"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--metrics-port must be between 0 and 65535, got 70000");
    assertThatThrownBy(() -> parse(NO_ENV, "--bootstrap", "k:9092", "--metrics-port", "-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--metrics-port must be between 0 and 65535, got -1");
  }
}
