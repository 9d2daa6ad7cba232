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
 * The node key in the state directory ({@value #KEY}, mode 0600, written whole or not at all), the
 * node's own Kafka login where enrolment gave one ({@value #KAFKA_LOGIN}, the same way) and the
 * record that the key was enrolled ({@value #ENROLLED}: the key id, the control plane and, where it
 * gave one, its agreement key for event MACs), so a restart neither makes a new key nor enrolls
 * again.
 */
public final class NodeKeyFile {
  static final String KEY = "node-key.pem";
  static final String ENROLLED = "node-key.enrolled";
  static final String KAFKA_LOGIN = "kafka-login";
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
      writeOwnerOnly(KEY, key.privateKeyPem());
      return key;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the node key in " + directory, e);
    }
  }

  private void writeOwnerOnly(String name, String content) throws IOException {
    Files.createDirectories(directory);
    Path partial =
        Files.createTempFile(
            directory, name, ".partial", PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    Files.writeString(partial, content, StandardCharsets.UTF_8);
    Files.move(partial, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Keeps the Kafka login enrolment gave (mode 0600: it is a password), or removes a kept one when
   * enrolment gave none (the control plane no longer makes a user per node).
   */
  public void keepKafkaLogin(Optional<KafkaLogin> login) {
    try {
      if (login.isEmpty()) {
        Files.deleteIfExists(directory.resolve(KAFKA_LOGIN));
        return;
      }
      KafkaLogin kept = login.get();
      writeOwnerOnly(
          KAFKA_LOGIN, kept.mechanism() + "\n" + kept.username() + "\n" + kept.password() + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the node's Kafka login in " + directory, e);
    }
  }

  /** The Kafka login kept with the enrolled key, if enrolment gave one. */
  public Optional<KafkaLogin> kafkaLogin() {
    Path file = directory.resolve(KAFKA_LOGIN);
    try {
      if (!Files.exists(file)) {
        return Optional.empty();
      }
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      if (lines.size() != 3) {
        throw new IllegalStateException(
            file
                + " is not a Kafka login (mechanism, user, password on three lines): remove it"
                + " and the node's enrolment record "
                + directory.resolve(ENROLLED)
                + " to enroll again");
      }
      return Optional.of(new KafkaLogin(lines.get(1), lines.get(2), lines.get(0)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** The control plane this key was enrolled with, if it was. */
  public Optional<String> enrolledWith(NodeEventSigner key) {
    return enrolment(key).map(lines -> lines.get(1));
  }

  /**
   * The control plane's agreement key kept with this key's enrolment, if it gave one (a record of
   * an older agent has none: its events go on without a MAC until the node enrolls again).
   */
  public Optional<String> eventMacKey(NodeEventSigner key) {
    return enrolment(key).filter(lines -> lines.size() == 3).map(lines -> lines.get(2));
  }

  /** The lines of the enrolment record ({@link #markEnrolled}), if it is this key's. */
  private Optional<List<String>> enrolment(NodeEventSigner key) {
    Path file = directory.resolve(ENROLLED);
    try {
      if (!Files.exists(file)) {
        return Optional.empty();
      }
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return (lines.size() == 2 || lines.size() == 3) && lines.get(0).equals(key.keyId())
          ? Optional.of(lines)
          : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  public void markEnrolled(NodeEventSigner key, String controlPlane, Optional<String> eventMacKey) {
    try {
      Files.writeString(
          directory.resolve(ENROLLED),
          key.keyId() + "\n" + controlPlane + "\n" + eventMacKey.map(k -> k + "\n").orElse(""),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record the enrolment in " + directory, e);
    }
  }
}
