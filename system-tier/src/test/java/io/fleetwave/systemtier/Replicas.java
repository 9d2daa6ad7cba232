package io.fleetwave.systemtier;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.OidcProviderStandIn;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * Replicas of the packaged control plane ({@code target/quarkus-app}, as it ships) against one
 * broker and one database, signing in with one identity provider: which of them leads the rollout
 * engine (the holder of its lease, migration V12), SIGKILLing it and starting a replacement, as
 * Kubernetes would.
 */
final class Replicas implements AutoCloseable {
  private static final Path APP = Path.of("..", "control-plane", "target", "quarkus-app");
  private static final String HEAP = "768m";
  // The driver webhook's port (freePort): below the ephemeral range, above the well-known ports.
  private static final int LOWEST_PORT = 10_000;
  private static final int DEFAULT_EPHEMERAL_START = 32_768;
  private static final int PORT_ATTEMPTS = 100;
  private static final Random RANDOM = new Random();
  // Two replicas starting side by side on a loaded 2-core machine took 134 s each.
  static final Duration READY_BOUND = Duration.ofMinutes(5);
  private static final String LEADER =
      "SELECT holder FROM engine_leader WHERE expires_at > now() ORDER BY term DESC LIMIT 1";

  private final Map<String, String> env;
  private final OidcProviderStandIn provider;
  private final Path work;
  private final List<ControlPlaneProcess> running = new ArrayList<>();
  private final List<Path> logs = new ArrayList<>();
  private final List<Path> everyLog = new ArrayList<>();
  private int started;

  private Replicas(Map<String, String> env, OidcProviderStandIn provider, Path work) {
    this.env = env;
    this.provider = provider;
    this.work = work;
  }

  /** {@code count} replicas launched side by side; returns once every one is ready. */
  static Replicas start(int count, Map<String, String> env, OidcProviderStandIn provider, Path work)
      throws IOException, InterruptedException {
    Replicas replicas = new Replicas(env, provider, work);
    try {
      for (int i = 0; i < count; i++) {
        replicas.launch();
      }
      for (ControlPlaneProcess replica : replicas.running) {
        replica.awaitReady(READY_BOUND);
      }
      return replicas;
    } catch (IOException | InterruptedException | RuntimeException e) {
      replicas.close();
      throw e;
    }
  }

  private ControlPlaneProcess launch() throws IOException {
    Path log = work.resolve("control-plane-" + started++ + ".log");
    ControlPlaneProcess replica = ControlPlaneProcess.launch(APP, 0, env, log, HEAP, provider);
    running.add(replica);
    logs.add(log);
    everyLog.add(log);
    return replica;
  }

  List<ControlPlaneProcess> running() {
    return List.copyOf(running);
  }

  ControlPlaneProcess first() {
    return running.getFirst();
  }

  /** The replica whose rollout engine holds the unexpired lease, if one does. */
  Optional<ControlPlaneProcess> leader(NodeHistories database) throws IOException {
    Optional<String> holder = database.text(LEADER);
    if (holder.isEmpty()) {
      return Optional.empty();
    }
    for (int i = 0; i < running.size(); i++) {
      if (Files.readString(logs.get(i)).contains(holder.get())) {
        return Optional.of(running.get(i));
      }
    }
    return Optional.empty();
  }

  /** The log file of {@code replica}. */
  Path log(ControlPlaneProcess replica) {
    return logs.get(running.indexOf(replica));
  }

  /** The log file of every replica launched, those killed included. */
  List<Path> everyLog() {
    return List.copyOf(everyLog);
  }

  /** SIGKILLs {@code replica} and launches its replacement (not waiting until it is ready). */
  ControlPlaneProcess killAndReplace(ControlPlaneProcess replica)
      throws IOException, InterruptedException {
    int index = running.indexOf(replica);
    replica.kill();
    running.remove(index);
    logs.remove(index);
    return launch();
  }

  /**
   * A port free now, for the fleet process's driver webhook, which the replicas must be told before
   * the fleet starts (and the fleet enrols through a replica), so it cannot bind port 0 and say.
   * Taken below the kernel's ephemeral range: a port of that range found free could be handed to
   * any of the run's outgoing connections, or to a port-0 bind, in the seconds before the fleet
   * binds it; below it only an explicit bind can take it.
   */
  static int freePort() throws IOException {
    int ephemeralStart = ephemeralRangeStart();
    if (ephemeralStart <= LOWEST_PORT) {
      throw new IOException(
          "the kernel hands out ports from %d (ip_local_port_range): none left below it above %d"
              .formatted(ephemeralStart, LOWEST_PORT));
    }
    for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
      int port = LOWEST_PORT + RANDOM.nextInt(ephemeralStart - LOWEST_PORT);
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return socket.getLocalPort();
      } catch (BindException taken) {
        // in use: another
      }
    }
    throw new IOException(
        "no free port from %d to %d after %d attempts"
            .formatted(LOWEST_PORT, ephemeralStart - 1, PORT_ATTEMPTS));
  }

  /** Where Linux starts handing out ports to connections and port-0 binds (32768 by default). */
  private static int ephemeralRangeStart() throws IOException {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    if (!Files.isReadable(range)) {
      return DEFAULT_EPHEMERAL_START;
    }
    // Lines, not readString: readString gave "3" for this file, whose size procfs gives as 0 (the
    // agent's boot_id and comm, read the same way, come whole; checked on JDK 25.0.3, Linux 6.18).
    return Integer.parseInt(Files.readAllLines(range).getFirst().trim().split("\\s+", 2)[0]);
  }

  @Override
  public void close() {
    running.forEach(ControlPlaneProcess::close);
  }
}
