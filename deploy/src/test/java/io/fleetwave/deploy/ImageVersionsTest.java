package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The manifests name released images only (docs/release.md, deploy/README.md "Images"): every
 * Fleetwave image is tagged with the release the manifests declare in deploy/RELEASE_VERSION, no
 * image anywhere carries a -SNAPSHOT tag, and IfNotPresent (Kubernetes' default for a tag other
 * than latest) is only ever paired with an immutable tag: a release X.Y.Z or a digest. A node that
 * once pulled a moving tag keeps that image for good under IfNotPresent.
 */
class ImageVersionsTest {
  private static final Pattern RELEASE = Pattern.compile("[0-9]+\\.[0-9]+\\.[0-9]+");
  private static final Pattern IMAGE_LINE =
      Pattern.compile("^\\s*-?\\s*(image|newTag|tag|appVersion|version):\\s*\"?([^\"\\s#]+)");

  /** The release the manifests name (deploy/RELEASE_VERSION; the release script writes it). */
  static String releaseVersion() {
    try {
      String version = Files.readString(Kustomize.deployDir().resolve("RELEASE_VERSION")).strip();
      if (!RELEASE.matcher(version).matches()) {
        throw new AssertionError(
            "deploy/RELEASE_VERSION must hold one release version X.Y.Z, got '" + version + "'");
      }
      return version;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Stream<Path> everyKustomization() {
    return Kustomize.kustomizations().stream();
  }

  @ParameterizedTest
  @MethodSource("everyKustomization")
  void everyImageIsAReleasedOneAndFleetwavesAreTheDeclaredRelease(Path dir) {
    String release = releaseVersion();
    List<String> problems = new ArrayList<>();
    for (Container container : containers(Kustomize.render(dir))) {
      String problem = problem(container, release);
      if (problem != null) {
        problems.add(container.getName() + ": " + problem);
      }
    }
    assertThat(problems).as(dir.toString()).isEmpty();
  }

  /**
   * Also what no kustomization renders (the Helm chart's values, a kustomization's images:
   * entries): no image, tag or version line in any YAML file under deploy/ names a -SNAPSHOT.
   */
  @Test
  void noYamlFileUnderDeployNamesASnapshot() throws IOException {
    List<String> snapshots = new ArrayList<>();
    for (Path file : yamlFiles()) {
      List<String> lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        Matcher line = IMAGE_LINE.matcher(lines.get(i));
        if (line.find() && line.group(2).toUpperCase(Locale.ROOT).contains("SNAPSHOT")) {
          snapshots.add(
              Kustomize.deployDir().relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
        }
      }
    }
    assertThat(snapshots)
        .as("development versions in deploy/ (name the release: deploy/RELEASE_VERSION)")
        .isEmpty();
  }

  /** The chart installs the same release (HelmChartTest checks what it renders). */
  @Test
  void theHelmChartsAppVersionIsTheDeclaredRelease() throws IOException {
    Path chart = Kustomize.deployDir().resolve("helm/fleetwave/Chart.yaml");
    Matcher appVersion =
        Pattern.compile("(?m)^appVersion:\\s*\"?([^\"\\s#]+)").matcher(Files.readString(chart));
    assertThat(appVersion.find()).as(chart + " has an appVersion").isTrue();
    assertThat(appVersion.group(1)).as(chart + " appVersion").isEqualTo(releaseVersion());
  }

  /**
   * The declared release is at most the version the poms build: X.Y.Z itself at a release commit,
   * an earlier release during the development of the next one (poms at A.B.C-SNAPSHOT).
   */
  @Test
  void theDeclaredReleaseIsNotAheadOfTheBuild() {
    String built = System.getProperty("fleetwave.project.version"); // deploy/pom.xml sets it
    String base = built.replaceFirst("-SNAPSHOT$", "");
    assertThat(RELEASE.matcher(base).matches()).as("the root pom's version " + built).isTrue();
    assertThat(compare(releaseVersion(), base))
        .as("deploy/RELEASE_VERSION " + releaseVersion() + " against the poms' " + built)
        .isLessThanOrEqualTo(0);
  }

  @Test
  void theRuleRefusesWhatItMust() {
    Container snapshot = container("fleetwave/node-agent:0.1.0-SNAPSHOT", "IfNotPresent");
    assertThat(problem(snapshot, "0.1.0")).contains("SNAPSHOT");
    assertThat(problem(container("fleetwave/node-agent:0.0.9", null), "0.1.0"))
        .contains("not the declared release 0.1.0");
    assertThat(problem(container("postgres:latest", "IfNotPresent"), "0.1.0"))
        .contains("IfNotPresent");
    assertThat(problem(container("busybox", null), "0.1.0")).contains("no tag");
    assertThat(problem(container("fleetwave/control-plane:0.1.0", "IfNotPresent"), "0.1.0"))
        .isNull();
    assertThat(problem(container("registry.example.com:5000/tool:1.2.3@sha256:ab", null), "0.1.0"))
        .isNull();
  }

  private static Container container(String image, String pullPolicy) {
    Container container = new Container();
    container.setName("c");
    container.setImage(image);
    container.setImagePullPolicy(pullPolicy);
    return container;
  }

  /** What is wrong with a container's image, or null. */
  static String problem(Container container, String release) {
    String image = container.getImage();
    boolean digest = image.contains("@sha256:");
    String name = digest ? image.substring(0, image.indexOf('@')) : image;
    int colon = name.lastIndexOf(':');
    String tag = colon > name.lastIndexOf('/') ? name.substring(colon + 1) : null;
    String repository = tag == null ? name : name.substring(0, colon);
    if (tag != null && tag.toUpperCase(Locale.ROOT).contains("SNAPSHOT")) {
      return image + " is a SNAPSHOT (a development build): name a release";
    }
    if (repository.startsWith("fleetwave/") && !digest && !release.equals(tag)) {
      return image + " is not the declared release " + release + " (deploy/RELEASE_VERSION)";
    }
    if (tag == null && !digest) {
      return image + " has no tag (latest, which moves): name a release or a digest";
    }
    boolean immutable = digest || RELEASE.matcher(tag.replaceFirst("^v", "")).lookingAt();
    String policy = container.getImagePullPolicy();
    boolean ifNotPresent = policy == null || policy.equals("IfNotPresent");
    if (ifNotPresent && !immutable) {
      return image + " is pulled IfNotPresent but its tag " + tag + " can move";
    }
    return null;
  }

  private static List<Container> containers(Rendered rendered) {
    List<PodSpec> pods = new ArrayList<>();
    rendered.all(Deployment.class).forEach(d -> pods.add(d.getSpec().getTemplate().getSpec()));
    rendered.all(DaemonSet.class).forEach(d -> pods.add(d.getSpec().getTemplate().getSpec()));
    rendered.all(StatefulSet.class).forEach(d -> pods.add(d.getSpec().getTemplate().getSpec()));
    List<Container> containers = new ArrayList<>();
    for (PodSpec pod : pods) {
      containers.addAll(pod.getInitContainers());
      containers.addAll(pod.getContainers());
    }
    return containers;
  }

  private static List<Path> yamlFiles() throws IOException {
    Path deploy = Kustomize.deployDir();
    return SourceTree.files(deploy).stream()
        .filter(f -> !f.startsWith(deploy.resolve("src")))
        .filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
        .sorted()
        .toList();
  }

  private static int compare(String a, String b) {
    String[] x = a.split("\\.", -1);
    String[] y = b.split("\\.", -1);
    for (int i = 0; i < 3; i++) {
      int c = Integer.compare(Integer.parseInt(x[i]), Integer.parseInt(y[i]));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }
}
