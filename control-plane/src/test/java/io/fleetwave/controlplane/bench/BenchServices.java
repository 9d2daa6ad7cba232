package io.fleetwave.controlplane.bench;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.events.Topics;
import io.fleetwave.events.security.CommandSigner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The embedded services the benches run the packaged control plane against. */
final class BenchServices {
  /**
   * The control plane's command key, as every deployment configures one: its agreement key is the
   * one the bench nodes' events carry MACs for ({@link BenchKeys}), as an enrolment answer gives it
   * to an agent.
   */
  static final CommandSigner COMMAND_KEY = CommandSigner.generate();

  private BenchServices() {}

  /** Where a bench writes its report and the logs of what it starts (target/bench), created. */
  static Path output() throws IOException {
    return Files.createDirectories(Path.of("target", "bench"));
  }

  /** The packaged control plane a bench launches ({@code -Dbench.app}). */
  static Path app() {
    return Path.of(System.getProperty("bench.app", "target/quarkus-app"));
  }

  /** The port it listens on ({@code -Dbench.port}). */
  static int port() {
    return Integer.getInteger("bench.port", 18080);
  }

  static void createTopics(EmbeddedKafka kafka) {
    createTopics(kafka, 8);
  }

  /** The control plane's topics, and a bench's own ({@code more}), each of {@code partitions}. */
  static void createTopics(EmbeddedKafka kafka, int partitions, String... more) {
    kafka.createTopics(partitions, Topics.NODE_EVENTS, Topics.NODE_EVENTS_DLQ);
    kafka.createTopics(partitions, EmbeddedKafka.compacted(), Topics.NODE_DESIRED);
    kafka.createTopics(partitions, Topics.NODE_COMMANDS, Topics.ROLLOUT_EVENTS);
    if (more.length > 0) {
      kafka.createTopics(partitions, more);
    }
  }

  /**
   * The control plane's settings for these services (a mutable map, for a bench to add to), with
   * node identity required and the command key configured, as every control plane runs.
   */
  static Map<String, String> controlPlane(EmbeddedKafka kafka, EmbeddedPostgres postgres) {
    return ControlPlaneProcess.settings(
        kafka, postgres, Map.of(ControlPlaneProcess.COMMAND_KEY_ENV, COMMAND_KEY.privateKeyPem()));
  }

  /**
   * As {@link #controlPlane}, its rollout engine off: the benches' stand-in writer moves the seeded
   * rollouts on.
   */
  static Map<String, String> controlPlaneWithoutEngine(
      EmbeddedKafka kafka, EmbeddedPostgres postgres) {
    Map<String, String> env = controlPlane(kafka, postgres);
    env.put("FLEETWAVE_ROLLOUT_ENGINE_ENABLED", "false");
    return env;
  }
}
