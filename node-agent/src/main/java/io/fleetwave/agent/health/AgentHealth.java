package io.fleetwave.agent.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What one agent's probes answer, from the milestones its start reaches and the loops of its run.
 *
 * <ul>
 *   <li><b>Startup</b>: the start is over once the GPUs are up and the first inventory published,
 *       or once the agent has decided to wait for the driver (it then registers and heartbeats).
 *       Host probe, Node object, Kafka's topic and the enrolment come before.
 *   <li><b>Liveness</b>: the heartbeat loop ticked within {@link #heartbeatBound}. The loop runs on
 *       a thread of its own that no Kafka send, GPU call, GPU reset, MIG change or driver wait ever
 *       holds (they run on other threads and queue their events), so none of them fails it: a
 *       restart would only lose the memory queue of a read-only host and start over.
 *   <li><b>Readiness</b>: enrolled (the control plane accepted the node's key), and publishing:
 *       Kafka acknowledged an event of this run within {@link #publishingBound}. A heartbeat goes
 *       out every interval, so a healthy agent always has a recent acknowledgement; during a Kafka
 *       outage readiness goes false and liveness stays true.
 * </ul>
 */
public final class AgentHealth {
  /**
   * Heartbeat intervals without a tick (or an acknowledgement) before the loop counts as stuck (or
   * the agent as not publishing): one missed beat is noise, three are not.
   */
  static final int MISSED_HEARTBEATS = 3;

  /**
   * The least either bound is, whatever the interval: a long GC pause or a starved CPU on a busy
   * node is not a hang, and a broker's leader election (seconds) is not an outage.
   */
  static final Duration FLOOR = Duration.ofSeconds(30);

  /** How the run is read once it exists. */
  private record Run(
      Supplier<Instant> lastHeartbeat,
      Supplier<Optional<Instant>> lastAcknowledged,
      Duration heartbeatInterval) {}

  /** The enrolment as the readiness probe tells it; {@code done} when it no longer holds it up. */
  private record Enrolment(boolean done, String description) {}

  private final Clock clock;
  private volatile String phase = "starting";
  private volatile Enrolment enrolment = new Enrolment(false, "not enrolled yet");
  private volatile Run run;
  private volatile String started;

  public AgentHealth(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** The longest the heartbeat loop may go without a tick and the agent still be alive. */
  public static Duration heartbeatBound(Duration heartbeatInterval) {
    return atLeastFloor(heartbeatInterval);
  }

  /** The longest since Kafka's last acknowledgement for the agent to count as publishing. */
  public static Duration publishingBound(Duration heartbeatInterval) {
    return atLeastFloor(heartbeatInterval);
  }

  private static Duration atLeastFloor(Duration heartbeatInterval) {
    if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
      throw new IllegalArgumentException(
          "heartbeat interval must be positive: " + heartbeatInterval);
    }
    Duration missed = heartbeatInterval.multipliedBy(MISSED_HEARTBEATS);
    return missed.compareTo(FLOOR) > 0 ? missed : FLOOR;
  }

  /** What the start is doing now (told by the startup probe until it is over). */
  public void starting(String what) {
    phase = Objects.requireNonNull(what, "what");
  }

  /** The agent enrolls with no control plane: its events are unsigned, by configuration. */
  public void enrolmentNotConfigured(String why) {
    enrolment = new Enrolment(true, "enrolment not configured (" + why + ")");
  }

  public void enrolling(String controlPlane) {
    enrolment = new Enrolment(false, "not enrolled yet: enrolling with " + controlPlane);
    phase = "enrolling with " + controlPlane;
  }

  public void enrolled(String keyId, String controlPlane) {
    enrolment = new Enrolment(true, "enrolled (key " + keyId + " with " + controlPlane + ")");
    phase = "preparing the run";
  }

  /**
   * The run exists: its heartbeat loop and Kafka's acknowledgements can be read.
   *
   * @param lastHeartbeat when the loop last ticked (the run's start before the first tick)
   * @param lastAcknowledged when Kafka last acknowledged an event of the run, empty before
   */
  public void running(
      Supplier<Instant> lastHeartbeat,
      Supplier<Optional<Instant>> lastAcknowledged,
      Duration heartbeatInterval) {
    heartbeatBound(heartbeatInterval); // refuses a non-positive interval now, not at a probe
    run =
        new Run(
            Objects.requireNonNull(lastHeartbeat, "lastHeartbeat"),
            Objects.requireNonNull(lastAcknowledged, "lastAcknowledged"),
            heartbeatInterval);
  }

  /** The start is over; {@code how} says where it ended (GPUs up, or waiting for the driver). */
  public void started(String how) {
    if (run == null) {
      throw new IllegalStateException("started before the run exists: " + how);
    }
    started = Objects.requireNonNull(how, "how");
  }

  public Verdict check(Probe probe) {
    return switch (probe) {
      case STARTUP -> startup();
      case LIVENESS -> liveness();
      case READINESS -> readiness();
    };
  }

  public Verdict startup() {
    String how = started;
    return how == null ? Verdict.failing("starting: " + phase) : Verdict.ok("started: " + how);
  }

  public Verdict liveness() {
    Run current = run;
    if (current == null) {
      // Kubernetes asks only once the startup probe passed; the start has bounds of its own.
      return Verdict.ok("alive: starting (" + phase + ")");
    }
    Duration bound = heartbeatBound(current.heartbeatInterval());
    Duration since = Duration.between(current.lastHeartbeat().get(), clock.instant());
    if (since.compareTo(bound) > 0) {
      return Verdict.failing(
          "stuck: the heartbeat loop has not ticked for "
              + seconds(since)
              + " (bound "
              + seconds(bound)
              + ": "
              + MISSED_HEARTBEATS
              + " intervals of "
              + seconds(current.heartbeatInterval())
              + ", at least "
              + seconds(FLOOR)
              + ")");
    }
    return Verdict.ok("alive: the heartbeat loop ticked " + seconds(since) + " ago");
  }

  public Verdict readiness() {
    Enrolment enrolled = enrolment;
    if (!enrolled.done()) {
      return Verdict.failing("not ready: " + enrolled.description());
    }
    Run current = run;
    if (current == null) {
      return Verdict.failing("not ready: " + enrolled.description() + "; starting: " + phase);
    }
    Optional<Instant> acknowledged = current.lastAcknowledged().get();
    if (acknowledged.isEmpty()) {
      return Verdict.failing(
          "not ready: "
              + enrolled.description()
              + ", but Kafka has acknowledged no event of this run yet");
    }
    Duration bound = publishingBound(current.heartbeatInterval());
    Duration since = Duration.between(acknowledged.get(), clock.instant());
    if (since.compareTo(bound) > 0) {
      return Verdict.failing(
          "not ready: "
              + enrolled.description()
              + ", but Kafka has acknowledged no event for "
              + seconds(since)
              + " (bound "
              + seconds(bound)
              + "); events wait in the outbox");
    }
    return Verdict.ok(
        "ready: "
            + enrolled.description()
            + " and publishing (last event acknowledged "
            + seconds(since)
            + " ago)");
  }

  private static String seconds(Duration duration) {
    return Math.max(0, duration.toMillis()) / 1000.0 + " s";
  }
}
