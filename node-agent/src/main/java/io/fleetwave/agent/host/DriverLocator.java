package io.fleetwave.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds the driver root (where libnvidia-ml.so.1 and nvidia-smi actually are) and the device root
 * (where dev/nvidia* actually are). Seed 004: they differ on COS, so each is looked for on its own.
 */
public final class DriverLocator {
  /** Detection order when no driver root is set. */
  public static final List<String> DRIVER_ROOT_CANDIDATES =
      List.of("/run/nvidia/driver", "/home/kubernetes/bin/nvidia", "/usr/local", "/");

  /** Which host kind puts its driver at each candidate root, for people reading a reason. */
  private static final Map<String, String> CANDIDATE_KINDS =
      Map.of(
          "/run/nvidia/driver", "driver container",
          "/home/kubernetes/bin/nvidia", "COS",
          "/usr/local", "Talos system extension",
          "/", "host install");

  /** Library directories searched under a driver root, in order. */
  public static final List<String> LIBRARY_DIRS =
      List.of(
          "lib64",
          "lib/x86_64-linux-gnu",
          "lib/aarch64-linux-gnu",
          "lib",
          "usr/lib64",
          "usr/lib/x86_64-linux-gnu",
          "usr/lib/aarch64-linux-gnu",
          "usr/lib");

  static final List<String> BINARY_DIRS = List.of("bin", "usr/bin", "sbin", "usr/sbin");
  public static final String NVML = "libnvidia-ml.so.1";

  private final Path hostRoot;

  public DriverLocator(Path hostRoot) {
    this.hostRoot = hostRoot;
  }

  /** A chosen root with its reason. */
  public record Located(String root, String reason, Optional<String> nvmlRelative) {}

  public Located driverRoot(Optional<String> explicit) {
    if (explicit.isPresent()) {
      String root = explicit.get();
      Optional<String> nvml = findNvml(root);
      return setExplicitly(
          "driverRoot", root, nvml.map(p -> "found " + p).orElse(NVML + " not found there"), nvml);
    }
    for (String candidate : DRIVER_ROOT_CANDIDATES) {
      Optional<String> nvml = findNvml(candidate);
      if (nvml.isPresent()) {
        return new Located(candidate, "driverRoot=" + candidate + ": found " + nvml.get(), nvml);
      }
    }
    return new Located(
        "/",
        "driverRoot=/: "
            + NVML
            + " not found under "
            + String.join(", ", DRIVER_ROOT_CANDIDATES)
            + "; using the host root",
        Optional.empty());
  }

  /** A root the operator named, with what was found there. */
  private static Located setExplicitly(
      String option, String root, String found, Optional<String> nvmlRelative) {
    return new Located(
        root, option + "=" + root + ": set explicitly (" + found + ")", nvmlRelative);
  }

  public Located deviceRoot(Optional<String> explicit, String driverRoot) {
    if (explicit.isPresent()) {
      String root = explicit.get();
      List<String> nodes = deviceNodes(root);
      return setExplicitly(
          "deviceRoot",
          root,
          nodes.isEmpty() ? "no dev/nvidia* there" : "found " + String.join(", ", nodes),
          Optional.empty());
    }
    for (String candidate : driverRoot.equals("/") ? List.of("/") : List.of(driverRoot, "/")) {
      List<String> nodes = deviceNodes(candidate);
      if (!nodes.isEmpty()) {
        return new Located(
            candidate,
            "deviceRoot=" + candidate + ": found " + String.join(", ", nodes),
            Optional.empty());
      }
    }
    return new Located(
        "/", "deviceRoot=/: no dev/nvidia* found; using the host root", Optional.empty());
  }

  /**
   * Where libnvidia-ml.so.1 was looked for and not found, per host kind, e.g. {@code no
   * libnvidia-ml.so.1 under /run/nvidia/driver (driver container), /home/kubernetes/bin/nvidia
   * (COS), ...; looked in lib64, lib/x86_64-linux-gnu, ... under each}.
   *
   * @param explicit the driver root set by the user, if any (then only it was looked at)
   */
  public static String nvmlMissing(Optional<String> explicit) {
    String roots =
        explicit
            .map(root -> "driver root " + root + " (set explicitly)")
            .orElseGet(
                () ->
                    DRIVER_ROOT_CANDIDATES.stream()
                        .map(root -> root + " (" + CANDIDATE_KINDS.get(root) + ")")
                        .collect(java.util.stream.Collectors.joining(", ")));
    return "no "
        + NVML
        + " under "
        + roots
        + "; looked in "
        + String.join(", ", LIBRARY_DIRS)
        + (explicit.isPresent() ? "" : " under each");
  }

  /** nvidia-smi under a driver root, as a path the agent can run. */
  public Optional<Path> nvidiaSmi(String driverRoot) {
    Path root = HostPaths.resolve(hostRoot, driverRoot);
    return BINARY_DIRS.stream()
        .map(dir -> root.resolve(dir).resolve("nvidia-smi"))
        .filter(Files::isRegularFile)
        .findFirst();
  }

  /**
   * libnvidia-ml.so.1 under a driver root, relative to it (e.g. {@code lib64/libnvidia-ml.so.1}).
   */
  public Optional<String> findNvml(String driverRoot) {
    Path root = HostPaths.resolve(hostRoot, driverRoot);
    return LIBRARY_DIRS.stream()
        .map(dir -> dir + "/" + NVML)
        .filter(relative -> Files.exists(root.resolve(relative)))
        .findFirst();
  }

  /** dev/nvidiactl and dev/nvidiaN under a root, sorted, as {@code dev/nvidia0}. */
  List<String> deviceNodes(String root) {
    Path dev = HostPaths.resolve(hostRoot, root).resolve("dev");
    if (!Files.isDirectory(dev)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(dev)) {
      return entries
          .map(p -> p.getFileName().toString())
          .filter(name -> name.equals("nvidiactl") || name.matches("nvidia\\d+"))
          .sorted()
          .map(name -> "dev/" + name)
          .toList();
    } catch (IOException e) {
      return List.of();
    }
  }
}
