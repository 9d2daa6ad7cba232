package io.fleetwave.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StandInBaseTest {
  @Test
  void writesADockerArchiveWithTheBasesConfigAndOnlyTheMarker(@TempDir Path dir) throws Exception {
    Path tar = dir.resolve("base.tar");
    StandInBase.write(tar);

    ImageTarball base = ImageTarball.open(tar);
    assertThat(base.format()).isEqualTo("docker");
    assertThat(base.names()).containsExactly(StandInBase.REPO_TAG);
    assertThat(base.strings("Env")).containsExactlyElementsOf(StandInBase.ENV);
    assertThat(base.strings("Entrypoint")).containsExactlyElementsOf(StandInBase.ENTRYPOINT);
    assertThat(base.strings("Cmd")).containsExactlyElementsOf(StandInBase.CMD);
    assertThat(base.diffIds()).containsExactly(StandInBase.diffId());

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
  void isTheSameOnEveryRun(@TempDir Path dir) throws Exception {
    StandInBase.write(dir.resolve("a.tar"));
    StandInBase.write(dir.resolve("b.tar"));
    assertThat(Files.readAllBytes(dir.resolve("a.tar")))
        .isEqualTo(Files.readAllBytes(dir.resolve("b.tar")));
  }
}
