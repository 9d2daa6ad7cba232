package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.security.CommandSigner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FleetMainTest {

  @Test
  void applyDelayTakesShorthandAndIsoDurations(@TempDir Path dir) throws Exception {
    Path key = Files.writeString(dir.resolve("command-key.pem"), pem());
    for (String[] given :
        new String[][] {
          {"500ms", "PT0.5S"}, {"2s", "PT2S"}, {"1m", "PT1M"}, {"PT1.5S", "PT1.5S"}
        }) {
      FleetMain.Options options =
          FleetMain.parse(
              "--bootstrap", "k:9092", "--public-key", key.toString(), "--apply-delay", given[0]);
      assertThat(options.applyDelay()).as(given[0]).isEqualTo(Duration.parse(given[1]));
      assertThat(options.following()).isPresent();
    }
  }

  @Test
  void kafkaWaitBoundsBothTheMetadataWaitAndTheDeliveryOfEveryNode() {
    SimulatedFleet.Settings riding =
        FleetMain.parse("--bootstrap", "k:9092", "--kafka-wait", "3m").settings();
    assertThat(riding.kafkaWait()).isEqualTo(Duration.ofMinutes(3));
    assertThat(riding.deliveryTimeout()).isEqualTo(Duration.ofMinutes(3));
    SimulatedFleet.Settings defaults = FleetMain.parse("--bootstrap", "k:9092").settings();
    assertThat(defaults).isEqualTo(SimulatedFleet.Settings.of("k:9092", Duration.ofSeconds(10)));
    assertThatThrownBy(() -> FleetMain.parse("--bootstrap", "k", "--kafka-wait", "long"))
        .hasMessage("--kafka-wait: 'long' is not a duration (e.g. 2s, 500ms, PT2S)");
  }

  @Test
  void withoutAPublicKeyTheNodesFollowNothing() {
    FleetMain.Options options = FleetMain.parse("--bootstrap", "k:9092");
    assertThat(options.following()).isEmpty();
    assertThat(options.applyDelay()).isZero();
  }

  @Test
  void badValuesAreRefusedNamingTheOptionAndTheValue(@TempDir Path dir) throws Exception {
    Path key = Files.writeString(dir.resolve("key.pem"), pem());
    String k = key.toString();
    assertThatThrownBy(
            () -> FleetMain.parse("--bootstrap", "k", "--public-key", k, "--apply-delay", "soon"))
        .hasMessage("--apply-delay: 'soon' is not a duration (e.g. 2s, 500ms, PT2S)");
    assertThatThrownBy(
            () -> FleetMain.parse("--bootstrap", "k", "--public-key", k, "--apply-delay", "-PT1S"))
        .hasMessage("--apply-delay: '-PT1S' is negative");
    assertThatThrownBy(() -> FleetMain.parse("--bootstrap", "k", "--apply-delay", "2s"))
        .hasMessageStartingWith("--apply-delay needs --public-key");
    assertThatThrownBy(() -> FleetMain.parse("--bootstrap", "k", "--heartbeat-seconds", "0"))
        .hasMessage("--heartbeat-seconds: '0' is not a positive whole number of seconds");
    assertThatThrownBy(() -> FleetMain.parse("--bootstrap", "k", "--apply-delay"))
        .hasMessage("--apply-delay needs a value");
    assertThatThrownBy(() -> FleetMain.parse("--public-key", k))
        .hasMessage("--bootstrap HOST:PORT is required");
  }

  @Test
  void aMissingOrMalformedKeyFileIsNamed(@TempDir Path dir) throws Exception {
    Path missing = dir.resolve("absent.pem");
    assertThatThrownBy(
            () ->
                FleetMain.parse("--bootstrap", "k", "--public-key", missing.toString()).following())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--public-key: cannot read " + missing);
    Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a key");
    assertThatThrownBy(
            () ->
                FleetMain.parse("--bootstrap", "k", "--public-key", garbage.toString()).following())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "--public-key: " + garbage + " is not an Ed25519 public key in PEM");
  }

  @Test
  void withAControlPlaneEachNodeEnrollsWithItsTokenFromTheFile(@TempDir Path dir) throws Exception {
    Path tokens =
        Files.writeString(dir.resolve("tokens"), "# node token\ngpu-0 abc.def\n\ngpu-1  ghi.jkl\n");
    FleetMain.Options options =
        FleetMain.parse(
            "--bootstrap",
            "k:9092",
            "--control-plane",
            "http://cp:8080",
            "--join-tokens",
            tokens.toString());
    FleetEnrolment enrolment = options.enrolment().orElseThrow();
    assertThat(enrolment.controlPlane().toCompletableFuture().get()).hasToString("http://cp:8080");
    assertThat(enrolment.joinTokens().mint("gpu-0")).isEqualTo("abc.def");
    assertThat(enrolment.joinTokens().mint("gpu-1")).isEqualTo("ghi.jkl");
    assertThatThrownBy(() -> enrolment.joinTokens().mint("gpu-2"))
        .hasMessage("--join-tokens: " + tokens + " has no join token for node gpu-2");
    assertThat(FleetMain.parse("--bootstrap", "k:9092").enrolment()).isEmpty();
  }

  @Test
  void enrolmentOptionsAreRefusedAloneOrMalformed(@TempDir Path dir) throws Exception {
    Path bad = Files.writeString(dir.resolve("bad"), "gpu-0\n");
    String b = bad.toString();
    assertThatThrownBy(() -> FleetMain.parse("--bootstrap", "k", "--control-plane", "http://cp"))
        .hasMessageStartingWith("--control-plane and --join-tokens go together");
    assertThatThrownBy(() -> FleetMain.parse("--bootstrap", "k", "--join-tokens", b))
        .hasMessageStartingWith("--control-plane and --join-tokens go together");
    assertThatThrownBy(
            () -> FleetMain.parse("--bootstrap", "k", "--control-plane", "cp", "--join-tokens", b))
        .hasMessage("--control-plane: 'cp' is not an http(s) URL (e.g. http://localhost:8080)");
    assertThatThrownBy(
            () ->
                FleetMain.parse(
                        "--bootstrap", "k", "--control-plane", "http://cp", "--join-tokens", b)
                    .enrolment())
        .hasMessage(
            "--join-tokens: " + b + " line 1 is not 'NODE TOKEN' (two fields separated by spaces)");
  }

  private static String pem() {
    return CommandSigner.generate().publicKeyPem();
  }
}
