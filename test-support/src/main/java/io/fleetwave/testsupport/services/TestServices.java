package io.fleetwave.testsupport.services;

import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.KafkaBroker;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Starts the real services tests run against. The one place that reads which Kafka broker the tests
 * get: {@value #KAFKA_PROPERTY}={@code embedded} (the default, Kafka's in-process KRaft broker) or
 * {@code testcontainers} (a broker in a Docker container; set by {@code -Ptestcontainers}).
 */
public final class TestServices {
  public static final String KAFKA_PROPERTY = "fleetwave.test.kafka";

  private TestServices() {}

  /** Which broker {@link #startKafka()} starts, from {@value #KAFKA_PROPERTY}. */
  public enum KafkaKind {
    EMBEDDED,
    TESTCONTAINERS;

    static KafkaKind configured() {
      String value = System.getProperty(KAFKA_PROPERTY, "embedded").strip();
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "", "embedded" -> EMBEDDED;
        case "testcontainers" -> TESTCONTAINERS;
        default ->
            throw new IllegalArgumentException(
                "-D"
                    + KAFKA_PROPERTY
                    + "="
                    + value
                    + ": expected 'embedded' (the default) or 'testcontainers'");
      };
    }
  }

  /**
   * A fresh broker of the configured kind, its storage empty. Where the Testcontainers broker is
   * asked for and no Docker daemon answers, throws JUnit's {@code TestAbortedException}: the tests
   * that need the broker are reported as skipped, with the reason.
   */
  public static KafkaBroker startKafka() {
    return switch (KafkaKind.configured()) {
      case EMBEDDED -> EmbeddedKafka.start();
      case TESTCONTAINERS -> {
        requireTestcontainers();
        yield TestcontainersKafka.start();
      }
    };
  }

  /**
   * Why the configured broker cannot start here, if it cannot: the Testcontainers one without a
   * Docker daemon. The extensions disable what needs it with this reason.
   */
  public static Optional<String> kafkaUnavailable() {
    if (KafkaKind.configured() == KafkaKind.EMBEDDED) {
      return Optional.empty();
    }
    requireTestcontainers();
    return TestcontainersKafka.unavailable();
  }

  /**
   * Aborts the calling test (JUnit's {@code TestAbortedException}: reported as skipped, with the
   * reason) where the configured broker cannot start here.
   */
  public static void assumeKafkaCanStart() {
    kafkaUnavailable().ifPresent(Assumptions::abort);
  }

  /** Checked before TestcontainersKafka is loaded: its own code needs the library. */
  private static void requireTestcontainers() {
    try {
      Class.forName(
          "org.testcontainers.kafka.KafkaContainer", false, TestServices.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "-D"
              + KAFKA_PROPERTY
              + "=testcontainers needs org.testcontainers:testcontainers-kafka on the test"
              + " classpath: run with -Ptestcontainers",
          e);
    }
  }

  /**
   * A fresh PostgreSQL server on its own data directory and a free port, copied from a cluster
   * initialised once per test JVM (a control-plane fork starts one for each application).
   */
  public static EmbeddedPostgres startPostgres() {
    return EmbeddedPostgres.startFromTemplate();
  }
}
