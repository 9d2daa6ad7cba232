package io.fleetwave.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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
  void outputPastTheBoundIsReadAndDroppedWithANote() {
    ProcessCommandRunner bounded = new ProcessCommandRunner(TrustedPaths.rootOrSelf(), 1024);

    CommandRunner.CommandResult result =
        bounded.run(
            List.of("/bin/sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' a; echo done >&2"),
            Duration.ofSeconds(30));

    assertThat(result.exitCode()).isZero();
    assertThat(result.stdout())
        .startsWith("a".repeat(1024) + "\n[output truncated: ")
        .endsWith("[output truncated: 3000000 bytes, the first 1024 kept]")
        .hasSize(1024 + "\n[output truncated: 3000000 bytes, the first 1024 kept]".length());
    assertThat(result.stderr()).isEqualTo("done\n");
  }

  @Test
  void aBinaryInADirectoryOthersCanWriteIsNotRun() throws Exception {
    Path planted = Files.createDirectory(dir.resolve("planted"));
    Path marker = dir.resolve("ran");
    Path script = Files.writeString(planted.resolve("nvidia-smi"), "#!/bin/sh\ntouch " + marker);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwxrwxrwx"));

    assertThatThrownBy(() -> runner.run(List.of(script.toString(), "-r"), Duration.ofSeconds(10)))
        .isInstanceOf(UntrustedPathException.class)
        .hasMessageStartingWith("host binary " + script + " refused: ")
        .hasMessageContaining(planted + " is writable by group and others");
    assertThat(marker).doesNotExist();

    Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(runner.run(List.of(script.toString(), "-r"), Duration.ofSeconds(10)).exitCode())
        .isZero();
    assertThat(marker).as("the same script once its directory is the owner's alone").exists();
  }

  @Test
  void aBareNameIsRunFromTheSystemDirectories() {
    CommandRunner.CommandResult result =
        runner.run(List.of("sh", "-c", "echo ok"), Duration.ofSeconds(10));

    assertThat(result.stdout()).isEqualTo("ok\n");
    assertThat(result.argv()).as("reported as asked").containsExactly("sh", "-c", "echo ok");
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
