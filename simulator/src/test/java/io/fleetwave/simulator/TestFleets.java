package io.fleetwave.simulator;

import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.agent.desired.StepInterceptor;
import io.fleetwave.agent.reconcile.StepDeadlines;
import io.fleetwave.embedded.KafkaBroker;
import io.fleetwave.events.security.CommandVerifier;
import io.fleetwave.simulator.fleet.FleetFile;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Simulated fleets on a test broker, as the ITs start them: two scheduler threads, 20 s to close
 * and 10 s for Kafka to serve the topic; what differs between tests is the fleet, its topic and how
 * often it beats.
 */
public final class TestFleets {
  private TestFleets() {}

  public static SimulatedFleet.Settings settings(
      KafkaBroker kafka, Duration heartbeat, String topic) {
    return new SimulatedFleet.Settings(
        kafka.bootstrapServers(),
        heartbeat,
        topic,
        2,
        Duration.ofSeconds(20),
        Duration.ofSeconds(10));
  }

  /**
   * Following the specs this verifier trusts on the given topics; a failed spec is retried after
   * 300 ms, then every second, so that a test sees the retry within its bound.
   */
  public static SpecFollowing onTopics(
      CommandVerifier verifier, String desiredTopic, String commandsTopic) {
    return new SpecFollowing(
        verifier,
        desiredTopic,
        commandsTopic,
        StepDeadlines.defaults(),
        List.of(Duration.ofMillis(300), Duration.ofSeconds(1)),
        Duration.ofSeconds(30),
        StepInterceptor.NONE,
        Clock.systemUTC(),
        Duration.ZERO);
  }

  /** The fleet of this fleet-file text, publishing to topic; it follows no desired spec. */
  public static SimulatedFleet start(
      KafkaBroker kafka, String fleetYaml, String name, Duration heartbeat, String topic) {
    return SimulatedFleet.start(
        FleetFile.parse(fleetYaml, name), settings(kafka, heartbeat, topic));
  }

  /**
   * The fleet of this fleet-file text following signed specs, its state under stateRoot (null: none
   * kept); heartbeats every 5 minutes, so that the tests read the spec's events, not beats.
   */
  public static SimulatedFleet following(
      KafkaBroker kafka,
      String fleetYaml,
      String name,
      String topic,
      SpecFollowing following,
      Path stateRoot) {
    return SimulatedFleet.start(
        FleetFile.parse(fleetYaml, name),
        settings(kafka, Duration.ofMinutes(5), topic),
        following,
        stateRoot);
  }

  /** Closes what a test started, in this order, skipping what it did not get to start. */
  public static void closeAll(AutoCloseable... started) throws Exception {
    for (AutoCloseable closeable : started) {
      if (closeable != null) {
        closeable.close();
      }
    }
  }
}
