package io.fleetwave.demo.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.notNullValue;

import io.fleetwave.agent.identity.BootstrapCredential;
import io.fleetwave.agent.identity.Enrolment;
import io.fleetwave.agent.identity.EnrolmentRefusedException;
import io.fleetwave.agent.identity.NodeIdentity;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.agent.publish.LastEpochOnTopic;
import io.fleetwave.agent.publish.NodeEventStream;
import io.fleetwave.controlplane.fixtures.NodeEnrolments;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.demo.fixtures.DrainFleetProfile;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's side of node identity against the real control plane: it makes its key, enrolls it
 * with a join token, signs what its publisher sends, and keeps its key across restarts on a
 * writable host without enrolling again.
 *
 * <p>In the demo module, beside the other tests that run the control plane with the agent's code:
 * the control plane's own tests need none of it, so its module builds beside the agent's. Here in
 * the drain profile's application, whose enrolment limits are the shipped ones (the control plane's
 * test profile lifts them, since all its tests enroll from one address).
 */
@QuarkusTest
@TestProfile(DrainFleetProfile.class)
class AgentEnrolmentIT {
  private static final Duration BOUND = Duration.ofSeconds(30);

  @TestHTTPResource("/")
  URI controlPlane;

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  @Test
  void anAgentEnrollsWithAJoinTokenAndItsSignedEventsAreProjected(@TempDir Path state)
      throws Exception {
    String node = "agent-enrolled";
    Enrolment enrolment = joinTokenEnrolment(node);
    NodeEventSigner key = enrolment.establish(node, Optional.of(state));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile(state))))
        .isEqualTo("rw-------");
    try (EventPublisher publisher = new EventPublisher(EventPublisher.Settings.of(bootstrap))) {
      publisher.signAs(node, key);
      publisher
          .publish(
              Events.envelope(
                  node, 1, 0, Events.registered(node, HostKind.UBUNTU, "580.95.05", Map.of())))
          .get(BOUND.toSeconds(), TimeUnit.SECONDS);
      publisher
          .publish(Events.envelope(node, 1, 1, Events.heartbeat(1)))
          .get(BOUND.toSeconds(), TimeUnit.SECONDS);
    }
    await()
        .atMost(BOUND)
        .until(() -> Arrays.equals(ProjectionRows.position(node), new long[] {1, 1}));

    // A restart: the same key from the state directory, not enrolled again (the join token,
    // used once, would be refused).
    NodeEventSigner again = enrolment.establish(node, Optional.of(state));
    assertThat(again.keyId()).isEqualTo(key.keyId());

    // The restarted agent kept the control plane's agreement key: a record with its MAC alone
    // (the signature taken off) is the node's own to the control plane.
    byte[] value = EventCodec.encode(Events.envelope(node, 1, 2, Events.heartbeat(2)));
    Map<String, String> headers = new HashMap<>();
    again.addHeaders(value, headers::put);
    assertThat(headers.remove(NodeEventSigner.SIGNATURE_HEADER)).isNotNull();
    assertThat(headers).containsKey(NodeEventSigner.MAC_HEADER);
    try (TopicClient topic = new TopicClient()) {
      topic.publishRaw(node, value, headers);
    }
    await()
        .atMost(BOUND)
        .until(() -> Arrays.equals(ProjectionRows.position(node), new long[] {1, 2}));
  }

  @Test
  void anAgentWhoseJoinTokenIsRefusedStopsWithTheControlPlanesReason(@TempDir Path state) {
    String token = NodeEnrolments.joinToken("agent-first", 600);
    Enrolment enrolment =
        new Enrolment(controlPlane, new BootstrapCredential.JoinToken(token), BOUND);
    assertThatThrownBy(() -> enrolment.establish("agent-second", Optional.of(state)))
        .isInstanceOf(EnrolmentRefusedException.class)
        .hasMessageContaining("(401)")
        .hasMessageContaining("is for node 'agent-first'")
        .hasMessageNotContaining(token.substring(token.indexOf('.') + 1));
  }

  @Test
  void aReadOnlyHostsKeyLivesInMemoryAndEnrollsAtEachStart() throws Exception {
    String node = "agent-read-only";
    NodeEventSigner first = joinTokenEnrolment(node).establish(node, Optional.empty());
    NodeEventSigner second = joinTokenEnrolment(node).establish(node, Optional.empty());
    assertThat(second.keyId()).isNotEqualTo(first.keyId());
  }

  /**
   * Enrolment is rate-limited per node (6 a minute as shipped): an agent answered 429 waits the
   * Retry-After and tries again within its patience, instead of stopping as on a refusal.
   */
  @Test
  void anAgentAnswered429TriesAgainAfterRetryAfter() throws Exception {
    String node = "agent-throttled";
    String wrongToken = "nosuch.0123456789abcdef";
    for (int i = 0; i < 6; i++) {
      NodeEnrolments.enrolment(node, NodeEventSigner.generate().publicKeyPem(), wrongToken)
          .then()
          .statusCode(401);
    }
    // The node's attempts are used up: the agent's first attempt will be answered 429.
    NodeEnrolments.enrolment(node, NodeEventSigner.generate().publicKeyPem(), wrongToken)
        .then()
        .statusCode(429)
        .header("Retry-After", notNullValue());
    NodeEventSigner key = joinTokenEnrolment(node).establish(node, Optional.empty());
    assertThat(key.keyId()).startsWith("sha256:");
  }

  /**
   * Issue 32 finding 6: a read-only host learns its last epoch from the topic, where anyone who can
   * write may plant a record under its name. Only records its own keys signed count: an unsigned
   * record and one signed by a stranger, both at Long.MAX_VALUE - 1, are skipped, and the next
   * run's events are projected.
   */
  @Test
  void aReadOnlyAgentTakesItsEpochOnlyFromRecordsItsOwnKeysSigned() throws Exception {
    String node = "agent-planted";
    NodeIdentity first = joinTokenEnrolment(node).establishIdentity(node, Optional.empty());
    NodeEventSigner stranger = NodeEventSigner.generate();
    try (TopicClient topic = new TopicClient()) {
      registerAt(topic, node, 7, first.key());
      byte[] planted =
          EventCodec.encode(Events.envelope(node, Long.MAX_VALUE - 1, 0, Events.heartbeat(1)));
      topic.publishRaw(node, planted);
      topic.publishRaw(node, planted, stranger.keyId(), stranger.sign(planted));

      // The next start of the read-only host: a new key, and the node's keys from the answer.
      NodeIdentity second = joinTokenEnrolment(node).establishIdentity(node, Optional.empty());
      assertThat(second.ownKeys()).containsKeys(first.key().keyId(), second.key().keyId());
      long learned =
          LastEpochOnTopic.find(
                  bootstrap,
                  Topics.NODE_EVENTS,
                  node,
                  Map.of(),
                  BOUND,
                  Optional.of(second.ownKeys()))
              .orElseThrow();
      assertThat(learned).isEqualTo(7);

      long next = NodeEventStream.nextEpoch(learned, Clock.systemUTC());
      registerAt(topic, node, next, second.key());
    }
  }

  /** The agent's enrolment with a join token an admin made for {@code node}. */
  private Enrolment joinTokenEnrolment(String node) {
    return new Enrolment(
        controlPlane,
        new BootstrapCredential.JoinToken(NodeEnrolments.joinToken(node, 600)),
        BOUND);
  }

  /** Publishes the node's registration at {@code epoch}, signed, and waits for its projection. */
  private static void registerAt(TopicClient topic, String node, long epoch, NodeEventSigner key) {
    topic.publishSigned(
        Events.envelope(
            node, epoch, 0, Events.registered(node, HostKind.TALOS, "580.95.05", Map.of())),
        key);
    await()
        .atMost(BOUND)
        .until(() -> Arrays.equals(ProjectionRows.position(node), new long[] {epoch, 0}));
  }

  private static Path keyFile(Path state) throws Exception {
    try (var files = Files.list(state)) {
      return files
          .filter(f -> f.getFileName().toString().equals("node-key.pem"))
          .findFirst()
          .orElseThrow();
    }
  }
}
