package io.fleetwave.agent;

import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.probe.HostProbe;
import io.fleetwave.agent.probe.HostProbeSettings;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.agent.publish.LastEpochOnTopic;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.security.CommandSigner;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The training run of the agent's AOT cache (JDK 25: {@code java -XX:AOTCacheOutput=agent.aot ...
 * io.fleetwave.agent.AotTraining}), for an image build that has neither a broker nor a GPU. It goes
 * the agent's way to its first event: the host probe, the GPU catalog, the event codec, the
 * signature check, and a Kafka producer and consumer with the agent's own settings against a port
 * where nothing listens; nothing is published. The JVM records the classes this loads and links; a
 * run with {@code -XX:AOTCache=agent.aot} then starts from them (simulator/BENCH.md, "AOT cache").
 *
 * <pre>AotTraining [HOST-ROOT]</pre>
 */
public final class AotTraining {
  /** Port 1 on the loopback: refused at once, so each Kafka call fails fast and loads its path. */
  private static final String NOWHERE = "127.0.0.1:1";

  private static final Duration BOUND = Duration.ofSeconds(2);

  private AotTraining() {}

  public static void main(String[] args) throws Exception {
    Path hostRoot = Path.of(args.length > 0 ? args[0] : "/");
    HostFacts facts = new HostProbe(HostProbeSettings.detectAll(hostRoot)).probe();
    GpuCatalog.bundled();
    NodeRegistered registered =
        facts.toNodeRegistered(null, "driverVersion=none: AOT training", null, Map.of());
    Envelope<NodeRegistered> envelope =
        Envelope.of(
            URI.create("fleetwave:agent/aot-training"),
            registered.hostname(),
            Instant.now(),
            1,
            1,
            registered);
    EventCodec.decode(EventCodec.encode(envelope));

    CommandSigner signer = CommandSigner.generate();
    SpecFollowing.of(AgentMain.verifier(signer.publicKeyPem()));

    EventPublisher.Settings settings =
        new EventPublisher.Settings(NOWHERE, Topics.NODE_EVENTS, BOUND, BOUND, Map.of());
    try (EventPublisher publisher = new EventPublisher(settings)) {
      try {
        publisher.publish(envelope).get(BOUND.toSeconds() * 2, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException
          | java.util.concurrent.TimeoutException
          | CompletionException expected) {
        // Nothing listens there: the send fails, which is all the training needs of it.
      }
      publisher.close(Duration.ZERO);
    }
    try {
      LastEpochOnTopic.find(
          NOWHERE, Topics.NODE_EVENTS, registered.hostname(), Map.of(), BOUND, Optional.empty());
    } catch (RuntimeException expected) {
      // The same: the consumer's path up to the broker is loaded.
    }
    System.out.println("AOT training done: " + registered.hostname());
  }
}
