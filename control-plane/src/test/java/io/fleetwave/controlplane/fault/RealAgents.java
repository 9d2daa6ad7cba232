package io.fleetwave.controlplane.fault;

import static org.awaitility.Awaitility.await;

import io.fleetwave.agent.AgentProcess;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.agent.nvml.StubNvmlLibrary;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

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

  private RealAgents(List<String> nodes, List<Process> processes) {
    this.nodes = nodes;
    this.processes = processes;
  }

  /**
   * One agent per host kind, named {@code prefix-<os id>}, labelled {@code labels}, publishing to
   * {@code bootstrap} and enrolling with {@code controlPlane}; {@code publicKey} verifies its
   * specs. They start one at a time, each once the one before is {@code registered}: an agent exits
   * when the broker does not answer within 10 s of its start (its supervisor would start it again),
   * which three JVMs starting at once on a loaded 2-core machine made happen.
   */
  static RealAgents start(
      Path work,
      String prefix,
      String labels,
      String bootstrap,
      ControlPlaneProcess controlPlane,
      Path publicKey,
      Predicate<String> registered)
      throws Exception {
    List<String> nodes = new ArrayList<>();
    List<Process> processes = new ArrayList<>();
    RealAgents agents = new RealAgents(nodes, processes);
    try {
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
        Path joinToken =
            Files.writeString(
                work.resolve(node + ".join-token"), controlPlane.joinTokens().mint(node) + "\n");
        processes.add(
            AgentProcess.start(
                Map.of(),
                List.of("-Xmx128m"),
                work.resolve(node + ".log"),
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
                joinToken.toString()));
        nodes.add(node);
      }
      // Started side by side, then awaited: each JVM's start is seconds on a loaded machine.
      for (String node : nodes) {
        await("the agent of %s registered (its log: %s.log)".formatted(node, node))
            .atMost(REGISTER_BOUND)
            .pollInterval(Duration.ofMillis(250))
            .until(
                () -> {
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

  List<String> nodes() {
    return nodes;
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
}
