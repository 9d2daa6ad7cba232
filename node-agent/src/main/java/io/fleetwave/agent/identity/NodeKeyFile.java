package io.fleetwave.agent.identity;

import io.fleetwave.events.security.NodeEventSigner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The node key in the state directory ({@value #KEY}, mode 0600, written whole or not at all) and
 * the record that it was enrolled ({@value #ENROLLED}: the key id and the control plane), so a
 * restart neither makes a new key nor enrolls again.
 */
public final class NodeKeyFile {
  static final String KEY = "node-key.pem";
  static final String ENROLLED = "node-key.enrolled";
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private final Path directory;

  public NodeKeyFile(Path directory) {
    this.directory = directory;
  }

  /** The key kept here, or a new one written here first. */
  public NodeEventSigner loadOrCreate() {
    Path file = directory.resolve(KEY);
    try {
      if (Files.exists(file)) {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        if (!OWNER_ONLY.containsAll(mode)) {
          throw new IllegalStateException(
              file
                  + " is readable by others ("
                  + PosixFilePermissions.toString(mode)
                  + "): a node key must be mode 0600; remove it to have a new key made and"
                  + " enrolled");
        }
        return NodeEventSigner.fromPkcs8(Files.readString(file, StandardCharsets.US_ASCII));
      }
      NodeEventSigner key = NodeEventSigner.generate();
      Files.createDirectories(directory);
      Path partial =
          Files.createTempFile(
              directory, KEY, ".partial", PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      Files.writeString(partial, key.privateKeyPem(), StandardCharsets.US_ASCII);
      Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
      return key;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the node key in " + directory, e);
    }
  }

  /** The control plane this key was enrolled with, if it was. */
  public Optional<String> enrolledWith(NodeEventSigner key) {
    Path file = directory.resolve(ENROLLED);
    try {
      if (!Files.exists(file)) {
        return Optional.empty();
      }
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return lines.size() == 2 && lines.get(0).equals(key.keyId())
          ? Optional.of(lines.get(1))
          : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  public void markEnrolled(NodeEventSigner key, String controlPlane) {
    try {
      Files.writeString(
          directory.resolve(ENROLLED),
          key.keyId() + "\n" + controlPlane + "\n",
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record the enrolment in " + directory, e);
    }
  }
}
