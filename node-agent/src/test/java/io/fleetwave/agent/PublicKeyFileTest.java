package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.security.CommandVerifier;
import io.fleetwave.events.security.Verdict;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.NodeSpec;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --public-key FILE as Kubernetes mounts a ConfigMap key: command.pub -> ..data/command.pub. */
class PublicKeyFileTest {
  @TempDir Path mount;

  /** Writes a ConfigMap version and points ..data at it, as the kubelet does (atomic swap). */
  private void configMapVersion(String stamp, String key, String content) throws IOException {
    Path version = Files.createDirectory(mount.resolve(".." + stamp));
    Files.writeString(version.resolve(key), content);
    Path next = mount.resolve("..data_tmp");
    Files.createSymbolicLink(next, Path.of(".." + stamp));
    Files.move(next, mount.resolve("..data"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    if (!Files.exists(mount.resolve(key), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      Files.createSymbolicLink(mount.resolve(key), Path.of("..data", key));
    }
  }

  private static boolean accepts(CommandVerifier verifier, CommandSigner signer) {
    CommandEnvelope command =
        signer.sign(
            CommandEnvelope.of(
                URI.create("fleetwave:control-plane"),
                "gpu-1",
                Instant.now(),
                new ApplyNodeSpec(
                    new NodeSpec("gpu-1", 1, null, List.of(), GatePolicy.HOLD_UNTIL_APPLIED),
                    Instant.now(),
                    null)));
    return verifier.verify(command, "gpu-1", 0, Instant.now()) instanceof Verdict.Accepted;
  }

  @Test
  void aKeyMountedFromAConfigMapIsReadThroughItsSymlinks() throws IOException {
    CommandSigner signer = CommandSigner.generate();
    configMapVersion("2026_11_30_13_00_00.000000001", "command.pub", signer.publicKeyPem());

    CommandVerifier verifier = AgentMain.verifier(mount.resolve("command.pub").toString());

    assertThat(Files.isSymbolicLink(mount.resolve("command.pub"))).isTrue();
    assertThat(accepts(verifier, signer)).isTrue();
    assertThat(accepts(verifier, CommandSigner.generate())).isFalse();
  }

  @Test
  void afterTheConfigMapChangesTheNextStartReadsTheNewKey() throws IOException {
    CommandSigner old = CommandSigner.generate();
    CommandSigner rotated = CommandSigner.generate();
    configMapVersion("2026_11_30_13_00_00.000000001", "command.pub", old.publicKeyPem());
    configMapVersion("2026_11_30_14_00_00.000000002", "command.pub", rotated.publicKeyPem());

    CommandVerifier verifier = AgentMain.verifier(mount.resolve("command.pub").toString());

    assertThat(accepts(verifier, rotated)).isTrue();
    assertThat(accepts(verifier, old)).isFalse();
  }

  @Test
  void aKeyTheConfigMapDoesNotHoldIsReportedMissingByPath() throws IOException {
    configMapVersion("2026_11_30_13_00_00.000000001", "other.pub", "x");
    String path = mount.resolve("command.pub").toString();

    assertThatThrownBy(() -> AgentMain.verifier(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--public-key: cannot read " + path + ": no such file");
  }

  @Test
  void theMountDirectoryIsReadAsTheKeysItHoldsSkippingTheKubeletsEntries() throws IOException {
    CommandSigner current = CommandSigner.generate();
    CommandSigner next = CommandSigner.generate();
    configMapVersion("2026_11_30_13_00_00.000000001", "current.pub", current.publicKeyPem());
    Files.writeString(mount.resolve("next.pub"), next.publicKeyPem());

    CommandVerifier verifier = AgentMain.verifier(mount.toString());

    assertThat(accepts(verifier, current)).isTrue();
    assertThat(accepts(verifier, next)).isTrue();
    assertThat(accepts(verifier, CommandSigner.generate())).isFalse();
  }

  @Test
  void aRunningAgentTakesAKeyAddedToTheConfigMapAndDropsARetiredOne() throws IOException {
    CommandSigner old = CommandSigner.generate();
    CommandSigner next = CommandSigner.generate();
    configMapVersion("2026_11_30_13_00_00.000000001", "old.pub", old.publicKeyPem());
    CommandVerifier verifier = AgentMain.verifier(mount.toString());
    assertThat(accepts(verifier, next)).isFalse();

    Path both = Files.createDirectory(mount.resolve("..2026_11_30_14_00_00.000000002"));
    Files.writeString(both.resolve("old.pub"), old.publicKeyPem());
    Files.writeString(both.resolve("next.pub"), next.publicKeyPem());
    swapData(both);
    Files.createSymbolicLink(mount.resolve("next.pub"), Path.of("..data", "next.pub"));
    assertThat(accepts(verifier, next)).isTrue();
    assertThat(accepts(verifier, old)).isTrue();

    Path retired = Files.createDirectory(mount.resolve("..2026_11_30_15_00_00.000000003"));
    Files.writeString(retired.resolve("next.pub"), next.publicKeyPem());
    swapData(retired);
    Files.delete(mount.resolve("old.pub"));
    assertThat(accepts(verifier, next)).isTrue();
    assertThat(accepts(verifier, old)).isFalse();
  }

  @Test
  void aChangeThatCannotBeReadKeepsTheKeysReadLast() throws IOException {
    CommandSigner current = CommandSigner.generate();
    Path key = Files.writeString(mount.resolve("current.pub"), current.publicKeyPem());
    CommandVerifier verifier = AgentMain.verifier(mount.toString());

    Files.writeString(key, "-----BEGIN PUBLIC KEY-----\nhalf-writ");

    assertThat(accepts(verifier, current)).isTrue();
  }

  @Test
  void aDirectoryWithoutAKeyIsRefusedNamingIt() throws IOException {
    Path empty = Files.createDirectory(mount.resolve("empty"));

    assertThatThrownBy(() -> AgentMain.verifier(empty.toString()))
        .hasMessage("--public-key: " + empty + " is a directory holding no key file");
  }

  @Test
  void aListOfFilesIsTrustedAsOneSet() throws IOException {
    CommandSigner first = CommandSigner.generate();
    CommandSigner second = CommandSigner.generate();
    Path a = Files.writeString(mount.resolve("a.pem"), first.publicKeyPem());
    Path b = Files.writeString(mount.resolve("b.pem"), second.publicKeyPem());

    CommandVerifier verifier = AgentMain.verifier(a + ", " + b);

    assertThat(accepts(verifier, first)).isTrue();
    assertThat(accepts(verifier, second)).isTrue();
  }

  private void swapData(Path version) throws IOException {
    Path next = mount.resolve("..data_tmp");
    Files.createSymbolicLink(next, version.getFileName());
    Files.move(next, mount.resolve("..data"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  @Test
  void aFileThatIsNotAPemPublicKeyIsRefusedByPath() throws IOException {
    configMapVersion(
        "2026_11_30_13_00_00.000000001",
        "command.pub",
        CommandSigner.generate().publicKeyPem().replace("PUBLIC KEY", "CERTIFICATE"));
    String path = mount.resolve("command.pub").toString();

    assertThatThrownBy(() -> AgentMain.verifier(path))
        .hasMessageStartingWith("--public-key: " + path + " is not an Ed25519 public key in PEM: ");
  }

  @Test
  void aPrivateKeyInPlaceOfThePublicOneIsRefusedWithoutQuotingIt() throws IOException {
    Path key = mount.resolve("command.key");
    String secret =
        "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIHN1cGVyLXNlY3JldC1zZWVkLWJ5dGVzLTEyMzQ1Ng==\n-----END PRIVATE KEY-----\n";
    Files.writeString(key, secret);

    assertThatThrownBy(() -> AgentMain.verifier(key.toString()))
        .hasMessageStartingWith("--public-key: " + key + " is not an Ed25519 public key in PEM: ")
        .hasMessageNotContaining("MC4CAQAw");
  }

  @Test
  void aBinaryDerKeyIsRefusedAsNotPemText() throws IOException {
    Path key = mount.resolve("command.der");
    Files.write(
        key, new byte[] {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, (byte) 0xff});

    assertThatThrownBy(() -> AgentMain.verifier(key.toString()))
        .hasMessage(
            "--public-key: "
                + key
                + " is not an Ed25519 public key in PEM: binary, not PEM text (DER? openssl pkey"
                + " -pubin -outform PEM)");
  }
}
