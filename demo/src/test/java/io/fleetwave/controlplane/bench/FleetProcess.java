package io.fleetwave.controlplane.bench;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.simulator.FleetEnrolment;
import io.fleetwave.simulator.FleetMain;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.simulator.fleet.NodeSpec;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The rollout benchmark's simulated agents in their own JVM ({@link FleetMain}), so they do not
 * share the control plane's heap, GC and threads: every node follows its spec, verified with the
 * control plane's public key, taking the bench's apply time, and enrolled with the control plane
 * (each node its own key, with a join token minted for it), signing every event.
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

  /**
   * Where the fleet's nodes enroll, and the file of their join tokens ({@code NODE TOKEN} lines).
   */
  record Enrolling(URI controlPlane, Path joinTokens) {
    private static final int MINTING_AT_ONCE = 16;

    /** Mints a join token for every node of the fleet file as the control plane's admin. */
    static Enrolling with(ControlPlaneProcess controlPlane, Path fleetFile, Path joinTokens)
        throws IOException, InterruptedException {
      FleetEnrolment.JoinTokens mint = controlPlane.joinTokens();
      List<String> nodes = FleetFile.read(fleetFile).nodes().stream().map(NodeSpec::name).toList();
      ExecutorService minting = Executors.newFixedThreadPool(MINTING_AT_ONCE);
      try {
        List<Future<String>> lines = new ArrayList<>();
        for (String node : nodes) {
          lines.add(minting.submit(() -> node + " " + mint.mint(node)));
        }
        List<String> file = new ArrayList<>();
        for (Future<String> line : lines) {
          file.add(line.get(MINT_BOUND_S, TimeUnit.SECONDS));
        }
        Files.write(joinTokens, file);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("minting the fleet's join tokens failed", e);
      } finally {
        minting.shutdownNow();
      }
      return new Enrolling(controlPlane.url(), joinTokens);
    }
  }

  private static final long MINT_BOUND_S = 30;

  static FleetProcess start(
      String bootstrap,
      Path fleetFile,
      Path publicKey,
      Enrolling enrolling,
      RolloutBench.Settings settings,
      Path log)
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
                    settings.apply().toString(),
                    "--control-plane",
                    enrolling.controlPlane().toString(),
                    "--join-tokens",
                    enrolling.joinTokens().toString()))
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
