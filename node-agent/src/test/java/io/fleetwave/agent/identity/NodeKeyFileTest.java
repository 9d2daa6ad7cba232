package io.fleetwave.agent.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.security.NodeEventSigner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeKeyFileTest {
  @TempDir Path dir;

  @Test
  void theNodesKafkaLoginIsKeptOwnerOnlyAndReadBackAfterARestart() throws Exception {
    KafkaLogin login = new KafkaLogin("node-gpu-7", "s3cret", "SCRAM-SHA-512");

    new NodeKeyFile(dir).keepKafkaLogin(Optional.of(login));

    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("kafka-login"))))
        .isEqualTo("rw-------");
    assertThat(new NodeKeyFile(dir).kafkaLogin()).contains(login);
  }

  @Test
  void theControlPlanesMacKeyIsKeptWithTheEnrolmentAndAnOlderRecordHasNone() throws Exception {
    NodeKeyFile file = new NodeKeyFile(dir);
    NodeEventSigner key = file.loadOrCreate();
    String macKey = CommandSigner.generate().agreementKey().publicKey();

    file.markEnrolled(key, "https://cp:8443", Optional.of(macKey));
    assertThat(new NodeKeyFile(dir).enrolledWith(key)).contains("https://cp:8443");
    assertThat(new NodeKeyFile(dir).eventMacKey(key)).contains(macKey);

    // An agent before MACs wrote the key id and the control plane only: enrolled, no MAC key.
    Files.writeString(dir.resolve("node-key.enrolled"), key.keyId() + "\nhttps://cp:8443\n");
    assertThat(file.enrolledWith(key)).contains("https://cp:8443");
    assertThat(file.eventMacKey(key)).isEmpty();
    // Another key's record says nothing of this one.
    assertThat(file.eventMacKey(NodeEventSigner.generate())).isEmpty();
  }

  @Test
  void anEnrolmentWithoutALoginRemovesAKeptOne() {
    NodeKeyFile file = new NodeKeyFile(dir);
    file.keepKafkaLogin(Optional.of(new KafkaLogin("node-gpu-7", "s3cret", "SCRAM-SHA-512")));

    file.keepKafkaLogin(Optional.empty());

    assertThat(file.kafkaLogin()).isEmpty();
  }

  @Test
  void aLoginIsReadFromTheEnrolmentAnswerAndNeverPrintsItsPassword() throws Exception {
    Optional<KafkaLogin> login =
        KafkaLogin.in(
            EventCodec.mapper()
                .readTree(
                    """
                    {"node": "gpu-7", "kafka": {"username": "node-gpu-7", "password": "s3cret",
                                                "mechanism": "SCRAM-SHA-512"}}
                    """));

    assertThat(login).contains(new KafkaLogin("node-gpu-7", "s3cret", "SCRAM-SHA-512"));
    assertThat(login.orElseThrow().toString()).doesNotContain("s3cret");
    assertThat(KafkaLogin.in(EventCodec.mapper().readTree("{\"node\": \"gpu-7\"}"))).isEmpty();
  }

  @Test
  void aLoginWithAMechanismTheAgentCannotSpeakIsRefusedByName() {
    assertThatThrownBy(() -> new KafkaLogin("node-gpu-7", "s3cret", "GSSAPI"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GSSAPI")
        .hasMessageContaining("SCRAM-SHA-512");
  }
}
