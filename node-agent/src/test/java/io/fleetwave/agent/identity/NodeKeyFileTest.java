package io.fleetwave.agent.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.codec.EventCodec;
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
