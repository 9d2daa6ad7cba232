package io.fleetwave.testsupport.services;

import io.fleetwave.embedded.KafkaBroker;

/**
 * A real Kafka broker for a test class: {@code @ExtendWith(KafkaExtension.class)}, then a field or
 * parameter of type {@link KafkaBroker} ({@link Shared} for one broker per JVM). The broker is the
 * in-process one unless {@code -Ptestcontainers} ({@value TestServices#KAFKA_PROPERTY}) asks for a
 * container; where no Docker daemon answers, what needs the broker is skipped with the reason.
 * Topics are the test's to create ({@code FleetTopics.create} for Fleetwave's own).
 */
public final class KafkaExtension extends ServiceExtension<KafkaBroker> {
  public KafkaExtension() {
    super(KafkaBroker.class, TestServices::startKafka, TestServices::kafkaUnavailable);
  }
}
