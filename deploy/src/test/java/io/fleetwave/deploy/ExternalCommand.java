package io.fleetwave.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of the tools an operator would use (kubectl, helm) with a bound, its output kept in
 * files so that a large render cannot fill a pipe and stall the tool.
 */
final class ExternalCommand {
  /** What the command printed and how it exited. */
  record Result(List<String> command, int exitCode, String stdout, String stderr) {
    /** The output of a run that must succeed; a failure fails the test with the tool's message. */
    String stdoutIfSucceeded() {
      if (exitCode != 0) {
        throw new AssertionError(
            String.join(" ", command) + " failed with exit code " + exitCode + ": " + stderr);
      }
      return stdout;
    }
  }

  private ExternalCommand() {}

  /**
   * Runs {@code command}; {@code missingHint} says how to install the tool when it cannot be
   * started. The tests do not skip without it.
   */
  static Result run(List<String> command, Duration bound, String missingHint) {
    Path out;
    Path err;
    try {
      out = Files.createTempFile("fleetwave-tool-", ".out");
      err = Files.createTempFile("fleetwave-tool-", ".err");
    } catch (IOException e) {
      throw new AssertionError("cannot create temporary files for a tool's output: " + e, e);
    }
    try {
      Process process;
      try {
        process =
            new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
      } catch (IOException e) {
        throw new AssertionError(
            "cannot run '" + command.getFirst() + "': " + missingHint + " (" + e.getMessage() + ")",
            e);
      }
      if (!process.waitFor(bound.toSeconds(), TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        throw new AssertionError(
            String.join(" ", command) + " did not finish within " + bound.toSeconds() + " s");
      }
      return new Result(
          command,
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8).strip());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while running " + String.join(" ", command), e);
    } catch (IOException e) {
      throw new AssertionError("cannot read the output of " + String.join(" ", command), e);
    } finally {
      try {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      } catch (IOException ignored) {
        // temporary files; the OS cleans up what is left
      }
    }
  }
}
