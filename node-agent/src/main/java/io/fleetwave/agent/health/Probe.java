package io.fleetwave.agent.health;

/**
 * The agent's three probes and the paths the metrics port serves them at. The DaemonSet's probes
 * point at these paths (deploy/ tests read them from here).
 */
public enum Probe {
  /** The agent finished its start: GPUs up and inventory published, or waiting for the driver. */
  STARTUP(Probe.STARTUP_PATH),
  /** Its heartbeat loop is not stuck. Never about Kafka, the GPUs or the driver. */
  LIVENESS(Probe.LIVENESS_PATH),
  /** Enrolled with the control plane and publishing: Kafka acknowledged an event lately. */
  READINESS(Probe.READINESS_PATH);

  public static final String STARTUP_PATH = "/startupz";
  public static final String LIVENESS_PATH = "/livez";
  public static final String READINESS_PATH = "/readyz";

  private final String path;

  Probe(String path) {
    this.path = path;
  }

  public String path() {
    return path;
  }
}
