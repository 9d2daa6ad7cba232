package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.database.DatabaseFailures;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * What the engine logs when a service it needs stops answering (Kafka taking its appends,
 * PostgreSQL its queries): one line when the outage starts, however many rounds fail meanwhile, and
 * one when the service is back. A database outage of a minute had written an ERROR with its stack
 * trace for every failed round, four a second.
 */
final class EngineOutages {
  private static final Logger LOG = Logger.getLogger(RolloutEngine.class);
  private final Outage kafka;
  private final Outage database;

  EngineOutages(Clock clock) {
    kafka =
        new Outage(
            clock,
            "Kafka",
            "it decides again from the log once Kafka takes appends (nothing after the"
                + " unacknowledged append was carried out)");
    database =
        new Outage(
            clock,
            "PostgreSQL",
            "it starts over from the log once the database answers (its lease lapses meanwhile)");
  }

  /** An append Kafka did not acknowledge. */
  void kafkaAway(String cause) {
    kafka.started(cause);
  }

  /** An append Kafka acknowledged. */
  void kafkaBack() {
    kafka.ended();
  }

  /** A round that failed: PostgreSQL out of reach is an outage, anything else an error. */
  void roundFailed(RuntimeException failure) {
    if (DatabaseFailures.unavailable(failure)) {
      database.started(DatabaseFailures.summary(failure));
    } else {
      LOG.errorf(failure, "rollout engine round failed; it starts over from the log");
    }
  }

  /** A round that ran: the database answered. */
  void databaseBack() {
    database.ended();
  }

  /** One service's outage: since when it has not answered, null while it does. */
  private static final class Outage {
    private final Clock clock;
    private final String service;
    private final String meanwhile;
    private Instant since;

    Outage(Clock clock, String service, String meanwhile) {
      this.clock = clock;
      this.service = service;
      this.meanwhile = meanwhile;
    }

    void started(String cause) {
      if (since == null) {
        since = clock.instant();
        LOG.warnf("rollout engine waiting for %s: %s; %s", service, cause, meanwhile);
      }
    }

    void ended() {
      if (since != null) {
        LOG.infof(
            "rollout engine resumed: %s is back after %.1f s",
            service, Duration.between(since, clock.instant()).toMillis() / 1000.0);
        since = null;
      }
    }
  }
}
