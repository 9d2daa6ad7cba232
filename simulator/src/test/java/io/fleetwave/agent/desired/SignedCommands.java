package io.fleetwave.agent.desired;

import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.command.NodeCommand;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes specs and commands the way the control plane must: CommandCodec JSON, signed with
 * CommandSigner, key = node name; specs on the compacted desired topic, one-shot commands on the
 * commands topic.
 */
final class SignedCommands implements AutoCloseable {
  static final URI SOURCE = URI.create("fleetwave:control-plane");

  private final CommandSigner signer;
  private final KafkaProducer<String, byte[]> producer;

  SignedCommands(String bootstrapServers, CommandSigner signer) {
    this.signer = signer;
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new StringSerializer(),
            new ByteArraySerializer());
  }

  static NodeSpec spec(String node, long generation, GpuSpec... gpus) {
    return new NodeSpec(node, generation, null, List.of(gpus), GatePolicy.HOLD_UNTIL_APPLIED);
  }

  static CommandEnvelope unsigned(String node, NodeCommand command) {
    return CommandEnvelope.of(SOURCE, node, Instant.now(), command);
  }

  static ApplyNodeSpec apply(NodeSpec spec) {
    return new ApplyNodeSpec(spec, Instant.now(), null);
  }

  /** Signs and publishes the spec on the desired topic. */
  CommandEnvelope desired(NodeSpec spec) {
    return send(Topics.NODE_DESIRED, signer.sign(unsigned(spec.node(), apply(spec))));
  }

  /** Signs and sends without waiting (bulk); {@link #flush()} waits for all. */
  @SuppressWarnings("FutureReturnValueIgnored") // bulk: flush() waits for all, as documented
  void desiredAsync(NodeSpec spec) {
    CommandEnvelope signed = signer.sign(unsigned(spec.node(), apply(spec)));
    producer.send(
        new ProducerRecord<>(Topics.NODE_DESIRED, spec.node(), CommandCodec.encode(signed)));
  }

  void flush() {
    producer.flush();
  }

  CommandEnvelope command(String node, NodeCommand command) {
    return send(Topics.NODE_COMMANDS, signer.sign(unsigned(node, command)));
  }

  /** The envelope signed by this control plane's key. */
  CommandEnvelope sign(CommandEnvelope envelope) {
    return signer.sign(envelope);
  }

  /** Publishes exactly this envelope (signed or not, by anyone). */
  CommandEnvelope send(String topic, CommandEnvelope envelope) {
    try {
      producer
          .send(new ProducerRecord<>(topic, envelope.subject(), CommandCodec.encode(envelope)))
          .get(30, TimeUnit.SECONDS);
      return envelope;
    } catch (Exception e) {
      throw new IllegalStateException("cannot publish " + envelope.type() + ": " + e, e);
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
