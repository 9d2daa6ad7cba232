package io.fleetwave.testsupport.services;

import io.fleetwave.embedded.KafkaBroker;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/**
 * A single-node KRaft broker in a Docker container (Testcontainers), configured like {@code
 * EmbeddedKafka}: no topic is created on first use, four partitions by default, no initial
 * rebalance delay. Only touched once {@link TestServices} has seen Testcontainers on the test
 * classpath ({@code -Ptestcontainers} puts it there).
 */
final class TestcontainersKafka implements KafkaBroker {
  static final String IMAGE_PROPERTY = "fleetwave.test.kafka.image";

  /** The broker version the project builds against (kafka.version in the root pom). */
  static final String DEFAULT_IMAGE = "apache/kafka:4.1.2";

  private static final AtomicBoolean SKIP_PRINTED = new AtomicBoolean();

  private final KafkaContainer container;

  private TestcontainersKafka(KafkaContainer container) {
    this.container = container;
  }

  static KafkaBroker start() {
    assumeDocker();
    KafkaContainer container =
        new KafkaContainer(System.getProperty(IMAGE_PROPERTY, DEFAULT_IMAGE))
            .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
            .withEnv("KAFKA_NUM_PARTITIONS", "4")
            .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0");
    container.start();
    return new TestcontainersKafka(container);
  }

  /** Aborts (skips) the calling test where no Docker daemon answers, saying so. */
  static void assumeDocker() {
    unavailable().ifPresent(Assumptions::abort);
  }

  /**
   * Why no Testcontainers broker can start here, if none can; printed once to the build's output
   * too, where the report of a skipped class does not show it.
   */
  static Optional<String> unavailable() {
    if (DockerAvailability.answers()) {
      return Optional.empty();
    }
    String reason =
        "Kafka tests skipped: -Ptestcontainers asks for a Testcontainers Kafka broker and no"
            + " Docker daemon answers here ("
            + DockerAvailability.reason()
            + "); without the profile they run on the embedded broker";
    if (SKIP_PRINTED.compareAndSet(false, true)) {
      System.err.println("[fleetwave] " + reason);
    }
    return Optional.of(reason);
  }

  @Override
  public String bootstrapServers() {
    return container.getBootstrapServers();
  }

  @Override
  public void close() {
    container.stop();
  }

  /** Asks Docker once per JVM: every test class would otherwise wait for the same answer. */
  private static final class DockerAvailability {
    private static final String REASON;
    private static final boolean ANSWERS;

    static {
      String reason;
      boolean answers;
      try {
        answers = DockerClientFactory.instance().isDockerAvailable();
        reason = answers ? "Docker answers" : "no valid Docker environment found";
      } catch (RuntimeException e) {
        answers = false;
        reason = e.getMessage();
      }
      REASON = reason;
      ANSWERS = answers;
    }

    static boolean answers() {
      return ANSWERS;
    }

    static String reason() {
      return REASON;
    }
  }
}
