package io.fleetwave.controlplane.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.command.CommandEnvelope;
import io.fleetwave.events.command.ResetGpu;
import io.fleetwave.events.security.CommandSigner;
import java.net.URI;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

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
}
