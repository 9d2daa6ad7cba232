package io.fleetwave.systemtier;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.OidcProviderStandIn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Replicas of the packaged control plane ({@code target/quarkus-app}, as it ships) against one
 * broker and one database, signing in with one identity provider: which of them leads the rollout
 * engine (the holder of its lease, migration V12), SIGKILLing it and starting a replacement, as
 * Kubernetes would.
 */
final class Replicas implements AutoCloseable {
  private static final Path APP = Path.of("..", "control-plane", "target", "quarkus-app");
  private static final String HEAP = "768m";
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

  @Override
  public void close() {
    running.forEach(ControlPlaneProcess::close);
  }
}
