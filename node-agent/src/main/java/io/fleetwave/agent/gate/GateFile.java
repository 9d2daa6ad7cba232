package io.fleetwave.agent.gate;

import io.fleetwave.agent.reconcile.DevicePluginGate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The gate as a file in the node's writable state directory: {@value #NAME} exists only while the
 * gate is released and names the boot it was released in. A device plugin (or a readiness probe)
 * starts only when the file exists and its {@code boot-id} equals {@code
 * /proc/sys/kernel/random/boot_id}, so a file left from before a reboot never opens the gate.
 * Written atomically (temporary file, then rename).
 */
public final class GateFile implements DevicePluginGate {
  public static final String NAME = "device-plugin-ready";

  private final Path file;
  private final Supplier<String> bootId;

  /**
   * @param stateDirectory the writable state directory (as the agent opens it)
   * @param bootId the host's current boot id
   */
  public GateFile(Path stateDirectory, Supplier<String> bootId) {
    this.file = Objects.requireNonNull(stateDirectory, "stateDirectory").resolve(NAME);
    this.bootId = Objects.requireNonNull(bootId, "bootId");
  }

  public Path path() {
    return file;
  }

  @Override
  public void hold(String reason) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot hold the device-plugin gate: delete " + file, e);
    }
  }

  @Override
  public void release() {
    Path temporary = file.resolveSibling(NAME + ".tmp");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(temporary, "boot-id=" + bootId.get() + "\n", StandardCharsets.UTF_8);
      Files.move(
          temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot release the device-plugin gate: write " + file, e);
    }
  }

  @Override
  public boolean released() {
    try {
      return Files.isRegularFile(file)
          && Files.readString(file, StandardCharsets.UTF_8)
              .lines()
              .anyMatch(line -> line.equals("boot-id=" + bootId.get()));
    } catch (IOException e) {
      return false; // unreadable: held, the safe reading for a device plugin
    }
  }
}
