package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kustomization renders, lands in its half's namespace (the agents' or the control plane's)
 * and uses Fleetwave's images.
 */
class KustomizationsTest {
  private static final Set<String> CLUSTER_SCOPED =
      Set.of("Namespace", "ClusterRole", "ClusterRoleBinding", "PriorityClass");

  static Stream<Path> everyKustomization() {
    return Kustomize.kustomizations().stream();
  }

  @Test
  void theInstallAndEveryAgentOverlayAreAmongTheKustomizationsRendered() {
    List<Path> all = Kustomize.kustomizations();
    assertThat(all).contains(Kustomize.deployDir().resolve("install"));
    for (HostKind kind : HostKind.values()) {
      assertThat(all).contains(Kustomize.deployDir().resolve(kind.dir()));
    }
  }

  @ParameterizedTest
  @MethodSource("everyKustomization")
  void everyKustomizationRendersCleanly(Path dir) {
    Rendered rendered = Kustomize.render(dir);
    assertThat(rendered.resources()).isNotEmpty();
    assertThat(rendered.resources())
        .allSatisfy(r -> assertThat(r.getMetadata().getName()).isNotBlank());
  }

  @ParameterizedTest
  @MethodSource("everyKustomization")
  void everyFieldOfEveryBuiltInResourceIsOneKubernetesKnows(Path dir) {
    List<String> unknown = new ArrayList<>();
    for (HasMetadata r : Kustomize.render(dir).resources()) {
      UnknownFields.of(r)
          .forEach(f -> unknown.add(r.getKind() + "/" + r.getMetadata().getName() + " " + f));
    }
    assertThat(unknown).as("fields fabric8's model does not know (misspelt?)").isEmpty();
  }

  @ParameterizedTest
  @MethodSource("everyKustomization")
  void everyNamespacedResourceLandsInTheNamespaceOfItsHalf(Path dir) {
    String expected =
        dir.startsWith(Kustomize.deployDir().resolve("agent"))
            ? NamespacesTest.AGENTS
            : NamespacesTest.CONTROL_PLANE;
    List<String> elsewhere = new ArrayList<>();
    for (HasMetadata r : Kustomize.render(dir).resources()) {
      String namespace = r.getMetadata().getNamespace();
      boolean clusterScoped = CLUSTER_SCOPED.contains(r.getKind());
      if (clusterScoped ? namespace != null : !expected.equals(namespace)) {
        elsewhere.add(r.getKind() + "/" + r.getMetadata().getName() + " in " + namespace);
      }
    }
    assertThat(elsewhere).isEmpty();
  }

  @Test
  void imagesAreFleetwavesOwnAndAKustomizeImagesEntryReplacesThem() throws IOException {
    String release = ImageVersionsTest.releaseVersion();
    assertThat(images(Kustomize.render("install")))
        .containsExactly("fleetwave/control-plane:" + release);
    for (HostKind kind : HostKind.values()) {
      assertThat(images(Kustomize.render(kind.dir())))
          .containsExactly("fleetwave/node-agent:" + release);
    }

    // As deploy/README.md tells an operator: their own kustomization with an images: entry.
    Path overlay = Kustomize.deployDir().resolve("target/kustomize-images-override");
    Files.createDirectories(overlay);
    Files.writeString(
        overlay.resolve("kustomization.yaml"),
        """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        resources:
          - ../../install
          - ../../agent/overlays/talos
        images:
          - name: fleetwave/control-plane
            newName: registry.example.com/fleetwave/control-plane
            newTag: 1.2.3
          - name: fleetwave/node-agent
            newName: registry.example.com/fleetwave/node-agent
            newTag: 1.2.3
        """);
    assertThat(images(Kustomize.render(overlay)))
        .containsExactlyInAnyOrder(
            "registry.example.com/fleetwave/control-plane:1.2.3",
            "registry.example.com/fleetwave/node-agent:1.2.3");
  }

  @Test
  void everyKustomizationTheReadmeAppliesExists() throws IOException {
    String readme = Files.readString(Kustomize.deployDir().resolve("README.md"));
    Matcher apply = Pattern.compile("kubectl apply -k (deploy/[A-Za-z0-9_./<>-]+)").matcher(readme);
    List<Path> applied = new ArrayList<>();
    while (apply.find()) {
      String path = apply.group(1).substring("deploy/".length());
      if (path.contains("<kind>")) {
        for (HostKind kind : HostKind.values()) {
          applied.add(Kustomize.deployDir().resolve(path.replace("<kind>", kind.overlay)));
        }
      } else {
        applied.add(Kustomize.deployDir().resolve(path));
      }
    }
    assertThat(applied).isNotEmpty();
    assertThat(Kustomize.kustomizations()).containsAll(applied);
  }

  @Test
  void everyEnvironmentVariableSetForTheControlPlaneOrAnAgentIsDocumented() throws IOException {
    String readme = Files.readString(Kustomize.deployDir().resolve("README.md"));
    Set<String> names = new TreeSet<>();
    Kustomize.render("install").all(Deployment.class).stream()
        .flatMap(d -> d.getSpec().getTemplate().getSpec().getContainers().stream())
        .flatMap(c -> c.getEnv().stream())
        .forEach(e -> names.add(e.getName()));
    for (HostKind kind : HostKind.values()) {
      AgentOverlay.of(kind).agent().getEnv().forEach(e -> names.add(e.getName()));
    }
    Set<String> documented = new TreeSet<>();
    Pattern backticked = Pattern.compile("`([A-Z0-9_]+)`");
    for (String line : readme.lines().toList()) {
      if (line.startsWith("|")) {
        String[] cells = line.split("\\|", -1);
        if (cells.length > 1) {
          Matcher name = backticked.matcher(cells[1]);
          while (name.find()) {
            documented.add(name.group(1));
          }
        }
      }
    }
    assertThat(names)
        .as("settings without a row (first cell) in a table of deploy/README.md")
        .isSubsetOf(documented);
  }

  private static Set<String> images(Rendered rendered) {
    Set<String> images = new TreeSet<>();
    rendered.all(Deployment.class).stream()
        .flatMap(d -> d.getSpec().getTemplate().getSpec().getContainers().stream())
        .map(Container::getImage)
        .forEach(images::add);
    rendered.all(DaemonSet.class).stream()
        .flatMap(d -> d.getSpec().getTemplate().getSpec().getContainers().stream())
        .map(Container::getImage)
        .forEach(images::add);
    return images;
  }
}
