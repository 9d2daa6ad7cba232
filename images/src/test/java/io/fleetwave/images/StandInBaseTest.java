package io.fleetwave.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StandInBaseTest {
  @ParameterizedTest
  @ValueSource(strings = {"amd64", "arm64"})
  void writesADockerArchiveWithTheBasesConfigAndOnlyTheMarker(
      String architecture, @TempDir Path dir) throws Exception {
    Path tar = dir.resolve("base.tar");
    StandInBase.write(tar, architecture);

    ImageTarball base = ImageTarball.open(tar);
    assertThat(base.format()).isEqualTo("docker");
    assertThat(base.names()).containsExactly(StandInBase.REPO_TAG + architecture);
    assertThat(base.architecture()).isEqualTo(architecture);
    assertThat(base.os()).isEqualTo("linux");
    assertThat(base.strings("Env")).containsExactlyElementsOf(StandInBase.ENV);
    assertThat(base.strings("Entrypoint")).containsExactlyElementsOf(StandInBase.ENTRYPOINT);
    assertThat(base.strings("Cmd")).containsExactlyElementsOf(StandInBase.CMD);
    assertThat(base.diffIds()).containsExactly(StandInBase.diffId(architecture));

    List<String> files = new ArrayList<>();
    base.visitLayers(
        (layer, entry, content) -> {
          if (entry.isFile()) {
            files.add(ImageTarball.path(entry));
          }
        });
    assertThat(files).containsExactly(StandInBase.MARKER);
  }

  @Test
  void mainWritesOneTarballPerArchitectureWithLayersOfTheirOwn(@TempDir Path dir) throws Exception {
    StandInBase.main(new String[] {dir.toString()});

    assertThat(StandInBase.ARCHITECTURES).containsExactly("amd64", "arm64");
    for (String architecture : StandInBase.ARCHITECTURES) {
      ImageTarball base = ImageTarball.open(dir.resolve(StandInBase.fileName(architecture)));
      assertThat(base.architecture()).isEqualTo(architecture);
    }
    assertThat(StandInBase.diffId("amd64"))
        .as("an image shows which base it was built on")
        .isNotEqualTo(StandInBase.diffId("arm64"));
  }

  @Test
  void refusesAnArchitectureItDoesNotBuildFor(@TempDir Path dir) {
    assertThatThrownBy(() -> StandInBase.write(dir.resolve("base.tar"), "s390x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("architecture s390x is not one of [amd64, arm64]");
  }

  @Test
  void isTheSameOnEveryRun(@TempDir Path dir) throws Exception {
    StandInBase.write(dir.resolve("a.tar"), "arm64");
    StandInBase.write(dir.resolve("b.tar"), "arm64");
    assertThat(Files.readAllBytes(dir.resolve("a.tar")))
        .isEqualTo(Files.readAllBytes(dir.resolve("b.tar")));
  }
}
