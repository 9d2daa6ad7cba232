package io.fleetwave.controlplane.rollout.engine;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * One log line when Kafka stops taking the engine's appends, however many attempts follow, and one
 * when it is back.
 */
final class KafkaAbsence {
  private static final Logger LOG = Logger.getLogger(RolloutEngine.class);
  private final Clock clock;
  // Since when Kafka has not taken the engine's appends or given its log back; null while it does.
  private Instant since;

  KafkaAbsence(Clock clock) {
    this.clock = clock;
  }

  void away(RolloutLog.RolloutLogException e) {
    if (since == null) {
      since = clock.instant();
      LOG.warnf(
          "rollout engine waiting for Kafka: %s; it decides again from the log once Kafka takes"
              + " appends (nothing after the unacknowledged append was carried out)",
          e.getMessage());
    }
  }

  void back() {
    if (since != null) {
      LOG.infof(
          "rollout engine resumed: Kafka is back after %.1f s",
          Duration.between(since, clock.instant()).toMillis() / 1000.0);
      since = null;
    }
  }
}
