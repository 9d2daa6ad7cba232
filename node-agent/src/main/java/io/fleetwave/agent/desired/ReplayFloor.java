package io.fleetwave.agent.desired;

import io.fleetwave.agent.publish.DurableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The highest spec generation and the last one-shot command generation a node accepted, kept across
 * agent runs so that no older signed record is acted on after a restart or a reboot.
 *
 * <p>On writable hosts they are kept in {@value #NAME} of the state directory, written before the
 * accepted record is acted on, through a fsynced temporary file renamed over the old one. On
 * read-only hosts nothing is kept ({@link #none()}): the agent learns the node's newest signed spec
 * from the compacted desired topic before acting ({@link CommandFollower}), and a one-shot command
 * issued before the agent run started is refused.
 */
public interface ReplayFloor {
  String NAME = "accepted-generations";

  /** The highest spec generation accepted; 0 if none is known. */
  long spec();

  /** The last one-shot command generation accepted; 0 if none is known. */
  long command();

  /** Records a newly accepted spec generation, durably where this floor is kept on disk. */
  void rememberSpec(long generation);

  /** Records a newly accepted one-shot command generation. */
  void rememberCommand(long generation);

  /** Nothing is kept (read-only hosts): every run starts from 0. */
  static ReplayFloor none() {
    return new ReplayFloor() {
      @Override
      public long spec() {
        return 0;
      }

      @Override
      public long command() {
        return 0;
      }

      @Override
      public void rememberSpec(long generation) {}

      @Override
      public void rememberCommand(long generation) {}
    };
  }

  /** Kept in {@value #NAME} in the writable state directory. */
  static ReplayFloor inDirectory(Path stateDirectory) {
    return new File(stateDirectory.resolve(NAME));
  }

  /** The file: {@code spec=N} and {@code command=N} lines. */
  final class File implements ReplayFloor {
    private static final System.Logger LOG = System.getLogger(ReplayFloor.class.getName());
    private final Path file;
    private long spec;
    private long command;

    File(Path file) {
      this.file = file;
      Map<String, Long> read = read(file);
      this.spec = read.getOrDefault("spec", 0L);
      this.command = read.getOrDefault("command", 0L);
    }

    private static Map<String, Long> read(Path file) {
      Map<String, Long> values = new HashMap<>();
      if (!Files.isRegularFile(file)) {
        return values;
      }
      try {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          int eq = line.indexOf('=');
          if (eq > 0) {
            values.put(
                line.substring(0, eq).strip(), Long.parseLong(line.substring(eq + 1).strip()));
          }
        }
      } catch (IOException | NumberFormatException e) {
        // A file this agent wrote is never half-written (rename); anything else is not ours to
        // trust, but refusing to start would strand the node: the topic still gives the floor.
        LOG.log(Level.WARNING, "cannot read {0}, starting without it: {1}", file, e);
      }
      return values;
    }

    @Override
    public synchronized long spec() {
      return spec;
    }

    @Override
    public synchronized long command() {
      return command;
    }

    @Override
    public synchronized void rememberSpec(long generation) {
      if (generation > spec) {
        write(generation, command);
        spec = generation;
      }
    }

    @Override
    public synchronized void rememberCommand(long generation) {
      if (generation > command) {
        write(spec, generation);
        command = generation;
      }
    }

    /**
     * @throws UncheckedIOException naming the file
     */
    private void write(long spec, long command) {
      try {
        DurableFiles.replace(file, "spec=" + spec + "\ncommand=" + command + "\n");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot record the accepted generations in " + file, e);
      }
    }
  }
}
