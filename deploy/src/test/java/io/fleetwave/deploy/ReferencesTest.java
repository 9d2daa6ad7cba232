package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Nothing applied waits forever on a Secret or ConfigMap that nobody creates. */
class ReferencesTest {

  static Stream<Path> everyKustomization() {
    return Kustomize.kustomizations().stream();
  }

  @ParameterizedTest
  @MethodSource("everyKustomization")
  void everySecretAndConfigMapReferencedIsCreatedOrDocumentedWithItsKey(Path dir)
      throws IOException {
    Rendered rendered = Kustomize.render(dir);
    Map<String, References.Source> sources =
        References.sources(rendered, Kustomize.deployDir().resolve("README.md"));
    // An agent overlay is applied after agent/shared (deploy/README.md), whose ConfigMap it mounts.
    if (dir.startsWith(Kustomize.deployDir().resolve("agent/overlays"))) {
      References.sources(AgentOverlay.shared(), Kustomize.deployDir().resolve("README.md"))
          .forEach(sources::putIfAbsent);
    }
    List<String> missing = new ArrayList<>();
    for (References.Reference reference : References.of(rendered)) {
      References.Source source = sources.get(reference.kind() + "/" + reference.name());
      if (source == null) {
        missing.add(
            reference + ": neither rendered, made by an operator, nor in README.md's table");
      } else if (reference.key().isPresent() && !source.keys().contains(reference.key().get())) {
        missing.add(reference + ": " + source.origin() + " has only the keys " + source.keys());
      }
    }
    assertThat(missing).as("%s", dir).isEmpty();
  }
}
