package io.fleetwave.testsupport.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.embedded.KafkaBroker;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Kafka extension, run through the JUnit launcher on small test classes: one broker per class
 * wherever it is injected, a new one for the next class, closed when its class ends; one broker for
 * the whole run where {@link Shared}; and the Testcontainers switch's skip where no Docker daemon
 * answers.
 */
class KafkaExtensionIT {
  static final List<KafkaBroker> seen = new ArrayList<>();

  @Test
  void oneBrokerPerClassInjectedEverywhereAndClosedWithItsClass() throws Exception {
    seen.clear();
    Run run = Run.of(PerClass.class, AnotherClass.class);

    assertThat(run.failures).isEmpty();
    assertThat(run.succeeded).hasSize(3);
    // PerClass: static field, @BeforeAll parameter, instance field, test parameter (twice).
    assertThat(seen).hasSize(7);
    KafkaBroker first = seen.getFirst();
    assertThat(seen.subList(0, 6)).allSatisfy(b -> assertThat(b).isSameAs(first));
    KafkaBroker second = seen.get(6);
    assertThat(second).isNotSameAs(first);
    assertThat(first.bootstrapServers()).isNotEqualTo(second.bootstrapServers());
    assertRefused(first);
    assertRefused(second);
  }

  @Test
  void aSharedBrokerOutlivesItsClassesAndIsNotHandedToAClassThatAsksForItsOwn() throws Exception {
    seen.clear();
    Run run = Run.of(SharedOne.class, SharedTwo.class, PerClassAfterShared.class);

    assertThat(run.failures).isEmpty();
    assertThat(seen).hasSize(3);
    assertThat(seen.get(1)).isSameAs(seen.get(0));
    assertThat(seen.get(2)).isNotSameAs(seen.get(0));
    // The launcher's run ended: its root store, and the shared broker with it, are closed.
    assertRefused(seen.get(0));
  }

  @Test
  void underTheTestcontainersSwitchWithoutDockerTheClassIsSkippedSayingWhy() {
    seen.clear();
    String before = System.getProperty(TestServices.KAFKA_PROPERTY);
    System.setProperty(TestServices.KAFKA_PROPERTY, "testcontainers");
    Run run;
    try {
      run = Run.of(PerClass.class, ParameterOnly.class);
    } finally {
      restore(before);
    }

    // PerClass is skipped as a whole; of ParameterOnly, only the test that takes the broker.
    assertThat(run.failures).isEmpty();
    assertThat(run.succeeded).containsExactly("needsNoBroker()");
    assertThat(seen).isEmpty();
    assertThat(run.skipped)
        .hasSize(2)
        .allSatisfy(
            reason ->
                assertThat(reason)
                    .contains(
                        "Kafka tests skipped", "-Ptestcontainers", "no Docker daemon answers"));
  }

  @Test
  void anUnknownBrokerKindFailsNamingThePropertyAndTheChoices() {
    String before = System.getProperty(TestServices.KAFKA_PROPERTY);
    System.setProperty(TestServices.KAFKA_PROPERTY, "kraft");
    try {
      assertThatThrownBy(TestServices::startKafka)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "-Dfleetwave.test.kafka=kraft: expected 'embedded' (the default) or"
                  + " 'testcontainers'");
    } finally {
      restore(before);
    }
  }

  private static void restore(String before) {
    if (before == null) {
      System.clearProperty(TestServices.KAFKA_PROPERTY);
    } else {
      System.setProperty(TestServices.KAFKA_PROPERTY, before);
    }
  }

  /** The broker's listener is gone: a connection to its port is refused. */
  private static void assertRefused(KafkaBroker broker) {
    String[] hostPort = broker.bootstrapServers().split(",", -1)[0].split(":", -1);
    assertThatThrownBy(
            () -> {
              try (Socket socket = new Socket()) {
                socket.connect(
                    new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 2_000);
              }
            })
        .isInstanceOf(ConnectException.class);
  }

  /** Creates a topic through the broker it was handed: it is a broker that serves. */
  static KafkaBroker serving(KafkaBroker broker) throws Exception {
    broker.createTopics(1, "it.extension");
    try (Admin admin =
        Admin.create(
            Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("it.extension");
    }
    return broker;
  }

  @ExtendWith(KafkaExtension.class)
  static class PerClass {
    static KafkaBroker staticField;
    KafkaBroker instanceField;

    @BeforeAll
    static void beforeAll(KafkaBroker broker) throws Exception {
      seen.add(staticField);
      seen.add(serving(broker));
    }

    @Test
    void one(KafkaBroker broker) {
      seen.add(instanceField);
      seen.add(broker);
    }

    @Test
    void two(KafkaBroker broker) {
      seen.add(instanceField);
      seen.add(broker);
    }
  }

  @ExtendWith(KafkaExtension.class)
  static class ParameterOnly {
    @Test
    void needsNoBroker() {}

    @Test
    void takesTheBroker(KafkaBroker broker) {
      seen.add(broker);
    }
  }

  @ExtendWith(KafkaExtension.class)
  static class AnotherClass {
    @Test
    void one(KafkaBroker broker) throws Exception {
      seen.add(serving(broker));
    }
  }

  @ExtendWith(KafkaExtension.class)
  static class SharedOne {
    @Test
    void one(@Shared KafkaBroker broker) throws Exception {
      seen.add(serving(broker));
    }
  }

  @ExtendWith(KafkaExtension.class)
  static class SharedTwo {
    @Shared static KafkaBroker broker;

    @Test
    void one() {
      seen.add(broker);
    }
  }

  @ExtendWith(KafkaExtension.class)
  static class PerClassAfterShared {
    @Test
    void one(KafkaBroker broker) {
      seen.add(broker);
    }
  }
}
