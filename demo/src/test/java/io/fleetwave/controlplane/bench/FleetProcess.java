package io.fleetwave.controlplane.bench;

import io.fleetwave.simulator.FleetMain;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The rollout benchmark's simulated agents in their own JVM ({@link FleetMain}), so they do not
 * share the control plane's heap, GC and threads: every node follows its spec, verified with the
 * control plane's public key, taking the bench's apply time.
 */
final class FleetProcess implements AutoCloseable {
  private static final long STOP_BOUND_S = 30;
  private final Process process;
  private final Path log;

  private FleetProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Fails (naming its log) when the fleet process ended: a bad option, a broker it never found. */
  void requireAlive() {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          "the simulated fleet process exited with " + process.exitValue() + "; see " + log);
    }
  }

  static FleetProcess start(
      String bootstrap, Path fleetFile, Path publicKey, RolloutBench.Settings settings, Path log)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                List.of(
                    java,
                    "-Xmx" + settings.fleetHeap(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    FleetMain.class.getName(),
                    "--bootstrap",
                    bootstrap,
                    "--fleet",
                    fleetFile.toString(),
                    "--heartbeat-seconds",
                    Long.toString(settings.heartbeat().toSeconds()),
                    "--public-key",
                    publicKey.toString(),
                    "--apply-delay",
                    settings.apply().toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    return new FleetProcess(process, log);
  }

  /** SIGTERM (the agents stop in order), then killed if it did not end within its bound. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(STOP_BOUND_S, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(STOP_BOUND_S, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
