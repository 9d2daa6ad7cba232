package io.fleetwave.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real processes: results come back, and a command past its bound is killed with its children. */
class ProcessCommandRunnerIT {
  @TempDir Path dir;

  private final ProcessCommandRunner runner = new ProcessCommandRunner();

  @Test
  void exitCodeAndOutputComeBack() {
    CommandRunner.CommandResult result =
        runner.run(
            List.of("/bin/sh", "-c", "echo out; echo err >&2; exit 3"), Duration.ofSeconds(10));

    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.stdout()).isEqualTo("out\n");
    assertThat(result.stderr()).isEqualTo("err\n");
    assertThat(result.describe())
        .isEqualTo("/bin/sh -c echo out; echo err >&2; exit 3 exited 3: err");
  }

  @Test
  void aCommandPastItsBoundIsKilledWithItsChildren() throws Exception {
    Path pidFile = dir.resolve("child.pid");
    long start = System.nanoTime();

    assertThatThrownBy(
            () ->
                runner.run(
                    List.of("/bin/sh", "-c", "sleep 300 & echo $! > " + pidFile + "; wait"),
                    Duration.ofMillis(700)))
        .isInstanceOf(CommandRunner.CommandTimeoutException.class)
        .hasMessageEndingWith("did not finish within 700 ms and was killed");

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    long child = Long.parseLong(Files.readString(pidFile).strip());
    Awaitility.await("the child sleep is gone")
        .atMost(Duration.ofSeconds(5))
        .until(() -> ProcessHandle.of(child).map(h -> !h.isAlive()).orElse(true));
  }
}
