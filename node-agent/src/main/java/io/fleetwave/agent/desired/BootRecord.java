package io.fleetwave.agent.desired;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The boot id the agent last saw, so a new run can tell a reboot (boot id changed) from an agent
 * restart. Kept in the state directory where there is one; where there is none the agent cannot
 * tell and treats every start as a boot ({@link #none()}): it holds the gate and converges, which
 * is idempotent.
 */
public interface BootRecord {
  Optional<String> last();

  void remember(String bootId);

  /** Nothing is kept: every start counts as a new boot. */
  static BootRecord none() {
    return new BootRecord() {
      @Override
      public Optional<String> last() {
        return Optional.empty();
      }

      @Override
      public void remember(String bootId) {}
    };
  }

  /** Kept in memory by something that outlives agent runs (a simulated node). */
  static BootRecord inMemory() {
    return new BootRecord() {
      private volatile String last;

      @Override
      public Optional<String> last() {
        return Optional.ofNullable(last);
      }

      @Override
      public void remember(String bootId) {
        last = bootId;
      }
    };
  }

  /** Kept in {@code last-boot-id} in the writable state directory. */
  static BootRecord inDirectory(Path stateDirectory) {
    Path file = stateDirectory.resolve("last-boot-id");
    return new BootRecord() {
      @Override
      public Optional<String> last() {
        try {
          return Files.isRegularFile(file)
              ? Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip())
                  .filter(s -> !s.isEmpty())
              : Optional.empty();
        } catch (IOException e) {
          return Optional.empty();
        }
      }

      @Override
      public void remember(String bootId) {
        try {
          Files.createDirectories(stateDirectory);
          Files.writeString(file, bootId + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot record the boot id in " + file, e);
        }
      }
    };
  }
}
