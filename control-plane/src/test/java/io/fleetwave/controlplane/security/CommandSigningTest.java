package io.fleetwave.controlplane.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.command.ResetGpu;
import io.fleetwave.events.security.CommandSigner;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandSigningTest {
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  private static final CommandEnvelope RESET =
      CommandEnvelope.of(
          URI.create("fleetwave:test"), "n", NOW, new ResetGpu(0, 1, NOW, NOW.plusSeconds(300)));

  @Test
  void withoutAKeyOutsideDemoModeNothingIsSigned() {
    CommandSigning signing = new CommandSigning(Optional.empty());

    assertThat(signing.configured()).isFalse();
    assertThatThrownBy(() -> signing.sign(RESET))
        .isInstanceOfSatisfying(
            SigningKeyMissingException.class,
            e -> assertThat(e.getMessage()).startsWith("command signing key not configured"));
    assertThatThrownBy(signing::publicKeyPem).isInstanceOf(SigningKeyMissingException.class);
  }

  @Test
  void aConfiguredKeyIsUsedAndItsPublicKeyIsPublished() {
    CommandSigner key = CommandSigner.generate();
    CommandSigning signing = new CommandSigning(Optional.of(key.privateKeyPem()));

    assertThat(signing.publicKeyPem()).isEqualTo(key.publicKeyPem());
    assertThat(key.verifier().verify(signing.sign(RESET), "n", 0, NOW).accepted()).isTrue();
  }

  @Test
  void aKeyFileFromAMountedSecretWinsAndEverySignatureNamesItsKey(@TempDir Path secret)
      throws Exception {
    CommandSigner mounted = CommandSigner.generate();
    Path file = Files.writeString(secret.resolve("private-key.pem"), mounted.privateKeyPem());
    CommandSigning signing =
        new CommandSigning(
            Optional.of(file), Optional.of(CommandSigner.generate().privateKeyPem()), List.of());

    CommandEnvelope signed = signing.sign(RESET);

    assertThat(signing.kid()).isEqualTo(mounted.kid());
    assertThat(signed.kid()).isEqualTo(mounted.kid());
    assertThat(mounted.verifier().verify(signed, "n", 0, NOW).accepted()).isTrue();
  }

  @Test
  void aKeyGivenOnTheCommandLineFailsTheStartWithoutBeingQuoted() {
    String pem = CommandSigner.generate().privateKeyPem();

    assertThatThrownBy(
            () ->
                new CommandSigning(
                    Optional.empty(),
                    Optional.of(pem),
                    List.of("-Xmx512m", "-Dfleetwave.commands.private-key=" + pem)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was given on the command line")
        .hasMessageContaining("fleetwave.commands.private-key-file")
        .hasMessageNotContaining(pem.lines().skip(1).findFirst().orElseThrow());
  }

  @Test
  void aMissingKeyFileIsNamed(@TempDir Path secret) {
    Path missing = secret.resolve("private-key.pem");

    assertThatThrownBy(() -> new CommandSigning(Optional.of(missing), Optional.empty(), List.of()))
        .hasMessageStartingWith("fleetwave.commands.private-key-file: cannot read " + missing);
  }
}
