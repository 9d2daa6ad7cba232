package io.fleetwave.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * An operator's overlay of one kustomization under deploy/ with some of its Components, written as
 * deploy/README.md tells them to: the base under {@code resources}, the components under {@code
 * components}, both as paths relative to the overlay.
 */
final class ComponentOverlay {
  private ComponentOverlay() {}

  /** Writes {@code workspace/overlay/kustomization.yaml} and returns its directory. */
  static Path write(Path workspace, String base, List<String> components) {
    Path dir = workspace.resolve("overlay");
    String yaml =
        """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        resources:
          - %s
        components:
        %s
        """
            .formatted(
                relative(dir, base),
                components.stream()
                    .map(c -> "  - " + relative(dir, c))
                    .collect(Collectors.joining("\n")));
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("kustomization.yaml"), yaml);
    } catch (IOException e) {
      throw new AssertionError("cannot write the overlay in " + dir + ": " + e, e);
    }
    return dir;
  }

  private static String relative(Path overlay, String deployRelative) {
    return overlay
        .toAbsolutePath()
        .relativize(Kustomize.deployDir().resolve(deployRelative))
        .toString();
  }
}
