package io.fleetwave.agent.reset;

import io.fleetwave.agent.modules.ProcModules;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Who holds a GPU's device node open: processes with an fd on {@code dev/nvidiaN} (found through
 * {@code proc/PID/fd} links under the host root: nvidia-persistenced, DCGM, device plugins,
 * workloads) and the nvidia_drm module while something uses it. The agent itself is left out.
 */
public final class DeviceHolders {
  private final Path hostRoot;

  public DeviceHolders(Path hostRoot) {
    this.hostRoot = hostRoot;
  }

  /** Processes holding {@code dev/nvidia<minor>}, as {@code name (pid N)}, sorted by pid. */
  public List<String> processesHolding(int minor) {
    Pattern node = Pattern.compile(".*/dev/nvidia" + minor);
    Path proc = hostRoot.resolve("proc");
    Optional<String> self = selfPid(proc);
    TreeSet<Long> pids = new TreeSet<>();
    try (DirectoryStream<Path> entries =
        Files.newDirectoryStream(proc, p -> p.getFileName().toString().matches("\\d+"))) {
      for (Path pidDir : entries) {
        String pid = pidDir.getFileName().toString();
        if (self.filter(pid::equals).isEmpty() && holds(pidDir.resolve("fd"), node)) {
          pids.add(Long.parseLong(pid));
        }
      }
    } catch (IOException e) {
      return List.of();
    }
    List<String> holders = new ArrayList<>();
    for (long pid : pids) {
      holders.add(processName(proc, pid) + " (pid " + pid + ")");
    }
    return holders;
  }

  /** nvidia_drm while its refcount is above zero (mig-parted#181: it blocks a reset). */
  public Optional<String> drmHolder() {
    return new ProcModules(hostRoot)
        .module("nvidia_drm")
        .filter(m -> m.refcount() > 0)
        .map(m -> "nvidia_drm (module refcount " + m.refcount() + ")");
  }

  /** Every holder of the GPU: processes first, then nvidia_drm. */
  public List<String> holdersOf(int minor) {
    List<String> holders = new ArrayList<>(processesHolding(minor));
    drmHolder().ifPresent(holders::add);
    return holders;
  }

  /** The comm name of a process under the host root, or "pid N" when unreadable. */
  public String processName(long pid) {
    return processName(hostRoot.resolve("proc"), pid);
  }

  private static String processName(Path proc, long pid) {
    try {
      return Files.readString(proc.resolve(Long.toString(pid)).resolve("comm")).strip();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static boolean holds(Path fdDir, Pattern node) {
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(fdDir)) {
      for (Path fd : fds) {
        if (Files.isSymbolicLink(fd)
            && node.matcher(Files.readSymbolicLink(fd).toString()).matches()) {
          return true;
        }
      }
    } catch (IOException e) {
      // A process that exits while we look, or one we may not inspect: not a holder we can name.
    }
    return false;
  }

  private static Optional<String> selfPid(Path proc) {
    try {
      return Optional.of(Files.readSymbolicLink(proc.resolve("self")).getFileName().toString());
    } catch (IOException | UnsupportedOperationException e) {
      return Optional.empty();
    }
  }
}
