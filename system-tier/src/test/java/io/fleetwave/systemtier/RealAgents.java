package io.fleetwave.systemtier;

import static org.awaitility.Awaitility.await;

import io.fleetwave.agent.AgentProcess;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.nvml.StubNvmlLibrary;
import io.fleetwave.controlplane.fixtures.ChildProcesses;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Real agents ({@code AgentMain}, each in a JVM of its own) on prepared host trees of three host
 * kinds, each with the gcc-built stand-in libnvidia-ml.so.1 where that kind keeps its driver: an
 * Ubuntu host (read-write root, a state directory), a Talos host (read-only root, driver under
 * /usr/local) and a COS host (read-only root, driver under /home/kubernetes/bin/nvidia). Each
 * enrolls with a join token an admin minted (read from a file, as in production), signs its events
 * and follows its signed spec.
 */
final class RealAgents implements AutoCloseable {
  // The stand-in library's source, from this module's directory (the tests' working directory).
  private static final Path NVML_STUB =
      Path.of("..", "node-agent", "src", "test", "c", "nvml_stub.c");
  private static final long STOP_BOUND_S = 30;
  private static final Duration REGISTER_BOUND = Duration.ofMinutes(2);
  private static final int STARTS = 3;

  /** A host kind as a host tree shapes it: its os-release, root and driver library directory. */
  private record Kind(
      String osId, String version, String kernel, String mountinfo, String libDir) {}

  private static final List<Kind> KINDS =
      List.of(
          new Kind(
              "ubuntu",
              "24.04",
              "6.8.0-49-generic",
              HostTree.RW_ROOT_MOUNTINFO,
              "usr/lib/x86_64-linux-gnu"),
          new Kind(
              "talos", "v1.13.0", "6.18.29-talos", HostTree.RO_ROOT_MOUNTINFO, "usr/local/lib64"),
          new Kind(
              "cos",
              "121",
              "6.6.93+",
              HostTree.RO_ROOT_MOUNTINFO,
              "home/kubernetes/bin/nvidia/lib64"));

  private final List<String> nodes;
  private final List<Process> processes;
  private final List<Function<Integer, Process>> launchers = new ArrayList<>();
  private final List<Integer> starts = new ArrayList<>();

  private RealAgents(List<String> nodes, List<Process> processes) {
    this.nodes = nodes;
    this.processes = processes;
  }

  /**
   * One agent per host kind, named {@code prefix-<os id>}, labelled {@code labels}, publishing to
   * {@code bootstrap} and enrolling with a replica {@code controlPlane} gives, the one running at
   * each start; {@code publicKey} verifies its specs. They start side by side and are awaited until
   * {@code registered}. An agent exits when the broker does not answer within 30 s of its start
   * (AgentMain.KAFKA_START_BOUND), which JVMs starting at once on a loaded 2-core machine can make
   * happen: one that exits before it has registered is started again with a new join token, as its
   * supervisor (systemd, the kubelet) would, at most {@link #STARTS} times.
   */
  static RealAgents start(
      Path work,
      String prefix,
      String labels,
      String bootstrap,
      Supplier<ControlPlaneProcess> controlPlane,
      Path publicKey,
      Predicate<String> registered)
      throws Exception {
    List<String> nodes = new ArrayList<>();
    List<Process> processes = new ArrayList<>();
    RealAgents agents = new RealAgents(nodes, processes);
    try {
      List<Function<Integer, Process>> launchers = agents.launchers;
      for (Kind kind : KINDS) {
        String node = prefix + "-" + kind.osId();
        Path host = Files.createDirectories(work.resolve(node + "-host"));
        StubNvmlLibrary.build(host.resolve(kind.libDir()), NVML_STUB);
        new HostTree(host)
            .osRelease(kind.osId(), kind.version())
            .kernel(kind.kernel())
            .hostname(node)
            .mountinfo(kind.mountinfo())
            .devices("/", 2)
            .file("proc/sys/kernel/random/boot_id", node + "-boot\n");
        Function<Integer, Process> launch =
            start -> launch(work, node, start, host, labels, bootstrap, controlPlane, publicKey);
        launchers.add(launch);
        nodes.add(node);
        processes.add(launch.apply(1));
        agents.starts.add(1);
      }
      for (int i = 0; i < nodes.size(); i++) {
        String node = nodes.get(i);
        int index = i;
        await("the agent of %s registered (its logs: %s*.log)".formatted(node, node))
            .atMost(REGISTER_BOUND)
            .pollInterval(Duration.ofMillis(250))
            .until(
                () -> {
                  if (!processes.get(index).isAlive() && agents.starts.get(index) < STARTS) {
                    agents.startAgain(index);
                  }
                  agents.requireAlive();
                  return registered.test(node);
                });
      }
      return agents;
    } catch (Exception | Error e) {
      agents.close();
      throw e;
    }
  }

  /**
   * Start {@code start} of the agent of {@code node}: a join token of its own, a log of its own.
   */
  private static Process launch(
      Path work,
      String node,
      int start,
      Path host,
      String labels,
      String bootstrap,
      Supplier<ControlPlaneProcess> controlPlanes,
      Path publicKey) {
    // A replica running now: the one that ran when the agents first started may have been killed.
    ControlPlaneProcess controlPlane = controlPlanes.get();
    String run = start == 1 ? node : node + "-" + start;
    try {
      Path joinToken =
          Files.writeString(work.resolve(run + ".join-token"), controlPlane.joinToken(node) + "\n");
      return AgentProcess.start(
          Map.of(),
          List.of("-Xmx128m"),
          work.resolve(run + ".log"),
          "--bootstrap",
          bootstrap,
          "--host-root",
          host.toString(),
          "--labels",
          labels,
          "--heartbeat-seconds",
          "1",
          "--public-key",
          publicKey.toString(),
          "--control-plane",
          controlPlane.url().toString(),
          "--join-token-file",
          joinToken.toString());
    } catch (Exception e) {
      throw new IllegalStateException("the agent of " + node + " did not start", e);
    }
  }

  List<String> nodes() {
    return nodes;
  }

  /**
   * SIGKILL to the agent of {@code node}, as a node's power loss or the OOM killer would, and the
   * agent started again as its supervisor would (its log: {@code node-<start>.log}).
   */
  void crashAndRestart(String node) throws InterruptedException {
    int index = nodes.indexOf(node);
    Process process = processes.get(index);
    process.destroyForcibly();
    if (!process.waitFor(STOP_BOUND_S, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the agent of " + node + " did not end on SIGKILL");
    }
    startAgain(index);
  }

  private void startAgain(int index) {
    starts.set(index, starts.get(index) + 1);
    processes.set(index, launchers.get(index).apply(starts.get(index)));
  }

  /** Fails naming the agent whose process ended (its log is in the work directory). */
  void requireAlive() {
    for (int i = 0; i < processes.size(); i++) {
      if (!processes.get(i).isAlive()) {
        throw new IllegalStateException(
            "the agent of "
                + nodes.get(i)
                + " exited with "
                + processes.get(i).exitValue()
                + "; see its log "
                + nodes.get(i)
                + ".log");
      }
    }
  }

  /** SIGTERM to each (they stop in order, saying so), bounded; killed if one does not end. */
  @Override
  public void close() throws IOException {
    processes.forEach(Process::destroy);
    for (Process process : processes) {
      ChildProcesses.awaitExit(process, Duration.ofSeconds(STOP_BOUND_S));
    }
  }
}
