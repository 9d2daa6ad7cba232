package io.fleetwave.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Renders a kustomization under deploy/ with {@code kubectl kustomize}, as an operator's {@code
 * kubectl apply -k} would, and parses the output. Each directory is rendered once per test run.
 * kubectl is required: a missing kubectl fails the tests (it is what would apply these files).
 */
final class Kustomize {
  /** Bound on one render; kubectl renders these in well under a second. */
  static final Duration BOUND = Duration.ofSeconds(60);

  private static final Map<Path, Rendered> CACHE = new ConcurrentHashMap<>();

  private Kustomize() {}

  /** The deploy/ directory (the module's base directory). */
  static Path deployDir() {
    return Path.of(System.getProperty("fleetwave.deploy.dir", ".")).toAbsolutePath().normalize();
  }

  /** Renders {@code deploy/<relative>}. */
  static Rendered render(String relative) {
    return render(deployDir().resolve(relative));
  }

  static Rendered render(Path dir) {
    return CACHE.computeIfAbsent(dir.toAbsolutePath().normalize(), d -> Rendered.parse(d, run(d)));
  }

  /** Every kustomization under deploy/ that can be rendered on its own (not Components). */
  static List<Path> kustomizations() {
    Path root = deployDir();
    return SourceTree.files(root).stream()
        .filter(p -> p.getFileName().toString().equals("kustomization.yaml"))
        .filter(p -> !root.relativize(p).startsWith("src"))
        .filter(p -> !isComponent(p))
        .map(Path::getParent)
        .sorted()
        .toList();
  }

  private static boolean isComponent(Path kustomization) {
    try {
      return Files.readAllLines(kustomization).stream()
          .anyMatch(line -> line.strip().equals("kind: Component"));
    } catch (IOException e) {
      throw new AssertionError("cannot read " + kustomization + ": " + e, e);
    }
  }

  private static String kubectl() {
    return System.getProperty("fleetwave.kubectl", "kubectl");
  }

  private static String run(Path dir) {
    return ExternalCommand.run(
            List.of(kubectl(), "kustomize", dir.toString()),
            BOUND,
            "install kubectl (1.27 or later, Kustomize is built in; e.g. apt-get install kubectl"
                + " from pkgs.k8s.io) or point -Dfleetwave.kubectl at it. The deploy tests render"
                + " every overlay with it and do not skip without it.")
        .stdoutIfSucceeded();
  }
}
