package io.fleetwave.agent.publish;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The epoch of the agent's last run, in {@value #NAME} of the writable state directory: a counter
 * per node that does not depend on the clock. Written before the run publishes anything, through a
 * fsynced temporary file renamed over the old one, so it is either the old or the new value.
 */
public final class EpochFile {
  public static final String NAME = "last-epoch";
  private static final System.Logger LOG = System.getLogger(EpochFile.class.getName());

  private final Path file;

  public EpochFile(Path stateDirectory) {
    this.file = stateDirectory.resolve(NAME);
  }

  /**
   * The last run's epoch; empty when there was none here (first run, new disk) or it is unreadable.
   */
  public OptionalLong last() {
    if (!Files.isRegularFile(file)) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(
          Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).strip()));
    } catch (IOException | NumberFormatException e) {
      LOG.log(Level.WARNING, "cannot read the last epoch from {0}, ignoring it: {1}", file, e);
      return OptionalLong.empty();
    }
  }

  /**
   * Records this run's epoch durably.
   *
   * @throws UncheckedIOException naming the file
   */
  public void remember(long epoch) {
    try {
      DurableFiles.replace(file, epoch + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record the epoch " + epoch + " in " + file, e);
    }
  }

  public Path file() {
    return file;
  }
}
