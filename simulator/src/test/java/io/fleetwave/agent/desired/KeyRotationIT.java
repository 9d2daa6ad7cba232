package io.fleetwave.agent.desired;

import static io.fleetwave.agent.desired.SignedCommands.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.security.CommandVerifier;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.SimulatedNode;
import io.fleetwave.simulator.TestFleets;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.services.KafkaExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key rotation with the agents running (a writable and a read-only host), as docs/security.md
 * "Keys and key rotation" describes it: the new public key is added to the agents' key directory,
 * the control plane switches to signing with the new key and re-signs the current specs, the old
 * key is retired; from then on a spec signed by the retired key is refused with its key id and
 * changes nothing, and a restart or reboot still converges on the re-signed spec. No agent restarts
 * for the keys.
 */
@ExtendWith(KafkaExtension.class)
class KeyRotationIT {
  private static final String EVENTS = "rotation.node-events";
  private static final String DESIRED = "rotation.node-desired";
  private static final String COMMANDS = "rotation.node-commands";
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static final String FLEET =
      """
      nodes:
        - {name-prefix: ubuntu-a100, count: 1, host: ubuntu, driver-version: "580.95.05",
           gpus: [{model: "0x20B210DE", count: 1}]}
        - {name-prefix: talos-a100, count: 1, host: talos, driver-version: "580.95.05",
           gpus: [{model: "0x20B210DE", count: 1}]}
      """;
  private static final List<GpuSpec> LAYOUTS =
      List.of(
          new GpuSpec(0, true, Map.of("3g.40gb", 1, "2g.20gb", 1, "1g.10gb", 2), 0, Map.of()),
          new GpuSpec(0, true, Map.of("3g.40gb", 2), 0, Map.of()),
          new GpuSpec(0, true, Map.of("7g.80gb", 1), 0, Map.of()));

  private static KafkaBroker kafka;
  @TempDir Path keys;
  @TempDir Path stateRoot;

  @Test
  void agentsTakeTheNewKeyWhileRunningAndRefuseTheRetiredOne() throws Exception {
    kafka.createTopics(1, EVENTS, COMMANDS);
    kafka.createTopics(1, KafkaBroker.compacted(), DESIRED);
    CommandSigner old = CommandSigner.generate();
    CommandSigner next = CommandSigner.generate();
    Path oldKey = Files.writeString(keys.resolve("2026-old.pem"), old.publicKeyPem());
    CommandVerifier verifier = CommandVerifier.trusting(PublicKeyFiles.load(List.of(keys)));
    SpecFollowing following = TestFleets.onTopics(verifier, DESIRED, COMMANDS);
    try (SimulatedFleet fleet =
            TestFleets.following(kafka, FLEET, "KeyRotationIT", EVENTS, following, stateRoot);
        SignedCommands byOld = new SignedCommands(kafka.bootstrapServers(), old);
        SignedCommands byNext = new SignedCommands(kafka.bootstrapServers(), next);
        NodeEventsReader log = new NodeEventsReader(kafka.bootstrapServers(), EVENTS)) {
      List<SimulatedNode> nodes = List.copyOf(fleet.nodes());
      for (SimulatedNode node : nodes) {
        send(byOld, spec(node.name(), 1, LAYOUTS.get(0)));
        awaitApplied(log, node, 1);
      }

      // 1. The new public key goes to the agents next to the old one.
      Files.writeString(keys.resolve("2026-next.pem"), next.publicKeyPem());
      // 2. The control plane signs with the new key: its current specs anew, then new ones.
      for (SimulatedNode node : nodes) {
        CommandEnvelope resigned = send(byNext, spec(node.name(), 1, LAYOUTS.get(0)));
        assertThat(resigned.kid()).isEqualTo(next.kid());
        send(byNext, spec(node.name(), 2, LAYOUTS.get(1)));
        awaitApplied(log, node, 2);
        assertThat(log.payloads(node.name(), node.epoch()))
            .as("the re-signed generation 1 is accepted (a no-op), not refused")
            .noneMatch(SpecRejected.class::isInstance);
      }
      // 3. The old key is retired.
      Files.delete(oldKey);
      for (SimulatedNode node : nodes) {
        List<Gpu> before = node.gpus().inventory();
        send(byOld, spec(node.name(), 3, LAYOUTS.get(2)));
        SpecRejected refused = awaitRejected(log, node, "unknown-key", 3);
        assertThat(refused.reason())
            .contains("signed with key " + old.kid())
            .contains("does not trust")
            .contains(next.kid());
        assertThat(node.gpus().inventory()).isEqualTo(before);
        assertThat(log.payloads(node.name(), node.epoch()))
            .noneMatch(e -> e instanceof SpecAccepted a && a.generation() == 3);
      }

      // The retired key's spec is the latest record now; the re-signed one still rules.
      SimulatedNode writable = fleet.node("ubuntu-a100-0").orElseThrow();
      SimulatedNode readOnly = fleet.node("talos-a100-0").orElseThrow();
      writable.crash();
      writable.restart();
      readOnly.reboot();
      for (SimulatedNode node : nodes) {
        awaitApplied(log, node, 2);
        awaitRejected(log, node, "unknown-key", 3);
        assertThat(log.payloads(node.name(), node.epoch()))
            .noneMatch(e -> e instanceof SpecRejected r && r.generation() == 2)
            .noneMatch(e -> e instanceof SpecAccepted a && a.generation() == 3);
      }
      // A spec signed by the new key still goes through after all that.
      send(byNext, spec(writable.name(), 4, LAYOUTS.get(2)));
      awaitApplied(log, writable, 4);
    }
  }

  private static CommandEnvelope send(SignedCommands control, NodeSpec spec) {
    return control.send(
        DESIRED, control.sign(SignedCommands.unsigned(spec.node(), SignedCommands.apply(spec))));
  }

  private static void awaitApplied(NodeEventsReader log, SimulatedNode node, long generation) {
    long epoch = node.epoch();
    await("SpecApplied(" + generation + ") of " + node.name() + " in epoch " + epoch)
        .atMost(WAIT)
        .until(() -> log.payloads(node.name(), epoch).contains(new SpecApplied(generation)));
  }

  private static SpecRejected awaitRejected(
      NodeEventsReader log, SimulatedNode node, String code, long generation) {
    long epoch = node.epoch();
    return await("SpecRejected(" + code + ", " + generation + ") of " + node.name())
        .atMost(WAIT)
        .until(
            () ->
                log.payloads(node.name(), epoch).stream()
                    .filter(SpecRejected.class::isInstance)
                    .map(SpecRejected.class::cast)
                    .filter(r -> r.code().equals(code) && r.generation() == generation)
                    .findFirst(),
            java.util.Optional::isPresent)
        .orElseThrow();
  }
}
