package io.fleetwave.agent.host;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs real processes with a bounded wait; on timeout the process and its descendants are killed
 * forcibly, so no host command can hold the agent. The binary must pass {@link TrustedPaths} (a
 * bare name such as {@code modprobe} is looked up in the system directories, never in {@code
 * PATH}), and what the agent keeps of each output stream is bounded ({@link #OUTPUT_LIMIT} by
 * default): the rest is read and dropped, so a chatty command neither blocks nor fills the heap.
 */
public final class ProcessCommandRunner implements CommandRunner {
  /** Bytes kept of each of stdout and stderr. */
  public static final int OUTPUT_LIMIT = 1 << 20;

  /** Where a bare command name is looked for, in order; {@code PATH} is never consulted. */
  static final List<String> SYSTEM_DIRS =
      List.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin");

  private final TrustedPaths trust;
  private final int outputLimit;

  /** Binaries owned by root or the agent's own user; 1 MiB kept of each output. */
  public ProcessCommandRunner() {
    this(TrustedPaths.rootOrSelf(), OUTPUT_LIMIT);
  }

  public ProcessCommandRunner(TrustedPaths trust, int outputLimit) {
    if (outputLimit < 1) {
      throw new IllegalArgumentException("outputLimit must be positive");
    }
    this.trust = trust;
    this.outputLimit = outputLimit;
  }

  /**
   * @throws UntrustedPathException when the binary is not found or lies where an untrusted user
   *     could have put it (nothing is run)
   */
  @Override
  public CommandResult run(List<String> argv, Duration timeout) {
    List<String> checked = new ArrayList<>(argv);
    checked.set(0, binary(argv.getFirst()).toString());
    Process process;
    try {
      process = new ProcessBuilder(checked).start();
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

  /**
   * The path to run: as given when absolute, else the first system directory holding it; checked
   * either way. The path keeps its name (not the link's target): multi-call binaries such as kmod
   * act by the name they are run as.
   */
  private Path binary(String command) {
    Path path =
        command.contains("/")
            ? Path.of(command)
            : inSystemDirs(command)
                .orElseThrow(
                    () ->
                        new UntrustedPathException(
                            command + " not found in " + String.join(", ", SYSTEM_DIRS)));
    trust.check(path, "host binary");
    return path.toAbsolutePath();
  }

  private static Optional<Path> inSystemDirs(String command) {
    return SYSTEM_DIRS.stream()
        .map(dir -> Path.of(dir, command))
        .filter(Files::isRegularFile)
        .findFirst();
  }

  private CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(() -> readBounded(in), r -> Thread.ofVirtual().start(r));
  }

  /** The first {@link #outputLimit} bytes, and a note of how many there were past them. */
  private String readBounded(InputStream in) {
    try (in) {
      byte[] kept = in.readNBytes(outputLimit);
      long dropped = 0;
      byte[] buffer = new byte[8192];
      for (int n; (n = in.read(buffer)) > 0; ) {
        dropped += n;
      }
      String text = new String(kept, StandardCharsets.UTF_8);
      return dropped == 0
          ? text
          : text
              + "\n[output truncated: "
              + (kept.length + dropped)
              + " bytes, the first "
              + kept.length
              + " kept]";
    } catch (IOException e) {
      return "";
    }
  }
}
