package io.fleetwave.agent.host;

import java.io.Serial;
import java.time.Duration;
import java.util.List;

/**
 * Runs one external host command (nvidia-smi, sriov-manage, modprobe, rmmod) with a bound. Tests
 * inject a recording implementation; {@link ProcessCommandRunner} runs real processes.
 */
@FunctionalInterface
public interface CommandRunner {

  /**
   * Runs {@code argv} and waits at most {@code timeout}.
   *
   * @throws CommandTimeoutException when the command did not finish in time (it has been killed)
   */
  CommandResult run(List<String> argv, Duration timeout);

  /** The outcome of a finished command. */
  record CommandResult(List<String> argv, int exitCode, String stdout, String stderr) {
    public boolean succeeded() {
      return exitCode == 0;
    }

    /** One line for events and exceptions: the command, its exit code and its error output. */
    public String describe() {
      String err = stderr.isBlank() ? stdout.strip() : stderr.strip();
      return String.join(" ", argv) + " exited " + exitCode + (err.isEmpty() ? "" : ": " + err);
    }
  }

  /** A command that ran past its bound and was killed. */
  final class CommandTimeoutException extends RuntimeException {
    @Serial private static final long serialVersionUID = 1L;

    public CommandTimeoutException(List<String> argv, Duration timeout) {
      super(
          String.join(" ", argv)
              + " did not finish within "
              + timeout.toMillis()
              + " ms and was killed");
    }
  }
}
