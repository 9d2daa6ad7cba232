package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import io.fleetwave.testsupport.kafka.NodeEventsReader;
import io.fleetwave.testsupport.services.KafkaExtension;
import io.fleetwave.testsupport.services.Shared;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet process the rollout benchmark starts: with --public-key its nodes apply specs signed
 * with that key, after --apply-delay, and reject a spec signed with any other key.
 */
@ExtendWith(KafkaExtension.class)
class FleetMainIT {
  private static final Duration APPLY_DELAY = Duration.ofSeconds(1);
  private static final String FLEET =
      """
      nodes:
        - {name-prefix: fleetmain-h100, count: 2, host: ubuntu, driver-version: "580.95.05",
           gpus: [{model: "0x233010DE", count: 1}]}
      """;

  // Shared: its node names (fleetmain-*) are its own; the reader keeps to them.
  @Test
  void nodesApplySpecsSignedWithTheKeyAfterTheDelayAndRejectOthers(
      @Shared KafkaBroker kafka, @TempDir Path dir) throws Exception {
    kafka.createTopics(2, Topics.NODE_EVENTS, Topics.NODE_COMMANDS);
    kafka.createTopics(2, KafkaBroker.compacted(), Topics.NODE_DESIRED);
    CommandSigner controlPlane = CommandSigner.generate();
    Path fleetFile = Files.writeString(dir.resolve("fleet.yaml"), FLEET);
    Path key = Files.writeString(dir.resolve("control-plane.pem"), controlPlane.publicKeyPem());
    FleetMain.Options options =
        FleetMain.parse(
            "--bootstrap", kafka.bootstrapServers(),
            "--fleet", fleetFile.toString(),
            "--public-key", key.toString(),
            "--apply-delay", "1s");
    try (SimulatedFleet fleet = FleetMain.start(options);
        NodeEventsReader log = new NodeEventsReader(kafka.bootstrapServers(), Topics.NODE_EVENTS);
        KafkaProducer<String, byte[]> producer = producer(kafka.bootstrapServers())) {
      assertThat(fleet.nodes()).hasSize(2);
      GpuSpec layout = new GpuSpec(0, true, Map.of("3g.40gb", 2), 0, Map.of());
      Instant sent = Instant.now();
      send(producer, controlPlane, spec("fleetmain-h100-1", 1, layout));

      await("SpecApplied(1) of fleetmain-h100-1")
          .atMost(Duration.ofSeconds(60))
          .until(() -> !log.of("fleetmain-h100-1", SpecApplied.class).isEmpty());
      assertThat(log.firstTime("fleetmain-h100-1", SpecAccepted.class))
          .isAfterOrEqualTo(sent.plus(APPLY_DELAY));
      GpuSpec other = new GpuSpec(0, true, Map.of("7g.80gb", 1), 0, Map.of());
      send(producer, CommandSigner.generate(), spec("fleetmain-h100-1", 2, other));
      await("SpecRejected(unknown-key, 2) of fleetmain-h100-1")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  log.of("fleetmain-h100-1", SpecRejected.class).stream()
                      .anyMatch(r -> r.code().equals("unknown-key") && r.generation() == 2));
      assertThat(log.of("fleetmain-h100-1", SpecApplied.class))
          .extracting(SpecApplied::generation)
          .containsOnly(1L);
    }
  }

  private static NodeSpec spec(String node, long generation, GpuSpec layout) {
    return new NodeSpec(node, generation, null, List.of(layout), GatePolicy.HOLD_UNTIL_APPLIED);
  }

  private static void send(KafkaProducer<String, byte[]> producer, CommandSigner by, NodeSpec spec)
      throws Exception {
    CommandEnvelope signed =
        by.sign(
            CommandEnvelope.of(
                URI.create("fleetwave:control-plane"),
                spec.node(),
                Instant.now(),
                new ApplyNodeSpec(spec, Instant.now(), null)));
    producer
        .send(new ProducerRecord<>(Topics.NODE_DESIRED, spec.node(), CommandCodec.encode(signed)))
        .get(30, TimeUnit.SECONDS);
  }

  private static KafkaProducer<String, byte[]> producer(String bootstrap) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
        new StringSerializer(),
        new ByteArraySerializer());
  }
}
