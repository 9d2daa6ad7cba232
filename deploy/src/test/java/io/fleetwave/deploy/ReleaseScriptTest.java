package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * .ci/release (docs/release.md), run on a throwaway copy of what it edits: every pom, fleetctl's
 * and the API document's version, the manifests, deploy/RELEASE_VERSION and the Helm chart come out
 * at one version, and a development version leaves the manifests and the chart on the release.
 */
class ReleaseScriptTest {
  private static final Path REPO = Kustomize.deployDir().getParent();
  private static final Pattern FLEETWAVE_IMAGE =
      Pattern.compile("(?m)^\\s*(- )?image: (fleetwave/[a-z-]+):(\\S+)$");

  @TempDir Path copy;
  private final List<Path> poms = new ArrayList<>();
  private final List<Path> manifests = new ArrayList<>();

  @BeforeEach
  void copyWhatTheScriptEdits() throws IOException {
    for (Path file : SourceTree.files(REPO)) {
      Path relative = REPO.relativize(file);
      String name = relative.toString();
      boolean pom = file.getFileName().toString().equals("pom.xml");
      boolean manifest =
          name.startsWith("deploy/") && !name.startsWith("deploy/src/") && name.endsWith(".yaml");
      if (pom
          || manifest
          || name.equals(".ci/release")
          || name.equals("deploy/RELEASE_VERSION")
          || name.equals("cli/src/main/java/io/fleetwave/cli/Fleetctl.java")
          || name.equals("control-plane/src/main/resources/application.properties")) {
        Path target = copy.resolve(relative);
        Files.createDirectories(target.getParent());
        Files.copy(file, target);
        if (pom) {
          poms.add(target);
        }
        if (manifest && FLEETWAVE_IMAGE.matcher(Files.readString(file)).find()) {
          manifests.add(target);
        }
      }
    }
    assertThat(poms).hasSizeGreaterThan(10);
    assertThat(manifests).isNotEmpty();
  }

  @Test
  void aReleaseSetsOneVersionEverywhereAndTheNextDevelopmentVersionOnlyInTheBuild()
      throws Exception {
    assertThat(copy.resolve("deploy/helm/fleetwave/Chart.yaml")).isRegularFile();

    Run release = release("0.2.0");
    assertThat(release.exit).as(release.output).isZero();
    assertVersions("0.2.0", "0.2.0");
    assertThat(read("deploy/helm/fleetwave/Chart.yaml"))
        .contains("\nversion: 0.2.0\n", "\nappVersion: 0.2.0\n");
    assertThat(read("cli/src/main/java/io/fleetwave/cli/Fleetctl.java"))
        .contains("version = \"fleetctl 0.2.0\",");
    assertThat(read("control-plane/src/main/resources/application.properties"))
        .contains("\nquarkus.smallrye-openapi.info-version=0.2.0\n");

    Run next = release("0.3.0-SNAPSHOT");
    assertThat(next.exit).as(next.output).isZero();
    assertVersions("0.3.0-SNAPSHOT", "0.2.0");
    assertThat(read("deploy/helm/fleetwave/Chart.yaml")).contains("\nappVersion: 0.2.0\n");
  }

  /**
   * Every POM at {@code build}; RELEASE_VERSION and the image tag of every manifest at {@code
   * released}, the version an operator deploys.
   */
  private void assertVersions(String build, String released) throws IOException {
    for (Path pom : poms) {
      assertThat(versionsIn(pom)).as(pom.toString()).containsExactly(build);
    }
    assertThat(read("deploy/RELEASE_VERSION")).isEqualTo(released + "\n");
    for (Path manifest : manifests) {
      assertThat(imageTags(manifest)).as(manifest.toString()).containsOnly(released);
    }
  }

  @Test
  void aReleaseWithoutTheChartStopsBeforeWritingAnything() throws Exception {
    Files.deleteIfExists(copy.resolve("deploy/helm/fleetwave/Chart.yaml"));
    String rootPom = read("pom.xml");

    Run release = release("0.2.0");
    assertThat(release.exit).isEqualTo(1);
    assertThat(release.output)
        .contains("deploy/helm/fleetwave/Chart.yaml is missing: a release sets the chart's");
    assertThat(read("pom.xml")).isEqualTo(rootPom);
  }

  @Test
  void aVersionThatIsNeitherAReleaseNorASnapshotIsRefused() throws Exception {
    Run release = release("1.0");
    assertThat(release.exit).isEqualTo(2);
    assertThat(release.output).contains("'1.0' is neither X.Y.Z nor X.Y.Z-SNAPSHOT", "usage:");
  }

  /** Every project version a pom names: its own or its parent's (the one next to fleetwave). */
  private static List<String> versionsIn(Path pom) throws IOException {
    List<String> versions = new ArrayList<>();
    var matcher =
        Pattern.compile("<artifactId>fleetwave-parent</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(Files.readString(pom));
    while (matcher.find()) {
      versions.add(matcher.group(1));
    }
    return versions;
  }

  private static List<String> imageTags(Path manifest) throws IOException {
    List<String> tags = new ArrayList<>();
    var matcher = FLEETWAVE_IMAGE.matcher(Files.readString(manifest));
    while (matcher.find()) {
      tags.add(matcher.group(3));
    }
    return tags;
  }

  private String read(String relative) throws IOException {
    return Files.readString(copy.resolve(relative));
  }

  private record Run(int exit, String output) {}

  private Run release(String version) throws Exception {
    Process process =
        new ProcessBuilder("bash", copy.resolve(".ci/release").toString(), version)
            .directory(copy.toFile())
            .redirectErrorStream(true)
            .start();
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(".ci/release " + version + " did not exit within 60 s");
    }
    return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }
}
