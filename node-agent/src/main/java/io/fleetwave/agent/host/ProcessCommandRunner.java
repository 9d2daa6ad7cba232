package io.fleetwave.agent.host;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs real processes with a bounded wait; on timeout the process and its descendants are killed
 * forcibly, so no host command can hold the agent.
 */
public final class ProcessCommandRunner implements CommandRunner {

  @Override
  public CommandResult run(List<String> argv, Duration timeout) {
    Process process;
    try {
      process = new ProcessBuilder(argv).start();
      process.getOutputStream().close(); // no command of ours reads stdin
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + String.join(" ", argv), e);
    }
    // Drain both pipes concurrently so a chatty command cannot block on a full pipe.
    CompletableFuture<String> out = drain(process.getInputStream());
    CompletableFuture<String> err = drain(process.getErrorStream());
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        throw new CommandTimeoutException(argv, timeout);
      }
      return new CommandResult(
          List.copyOf(argv),
          process.exitValue(),
          out.get(1, TimeUnit.SECONDS),
          err.get(1, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + String.join(" ", argv), e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // The process exited but a child kept its output pipe open: report what we have.
      return new CommandResult(
          List.copyOf(argv), process.exitValue(), out.getNow(""), err.getNow(""));
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            return "";
          }
        },
        r -> Thread.ofVirtual().start(r));
  }
}
