package io.fleetwave.agent.identity;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the agent proves its node with when it enrolls: a one-time join token, or its pod's
 * Kubernetes service-account token (read anew at each enrolment: Kubernetes rotates it).
 */
public sealed interface BootstrapCredential {
  /** The JSON member of the enrolment request that carries it. */
  default String field() {
    return switch (this) {
      case JoinToken _, JoinTokenFile _ -> "joinToken";
      case ServiceAccountToken _ -> "serviceAccountToken";
    };
  }

  /** The credential itself, a file's read anew each time; never logged. */
  default String secret() {
    return switch (this) {
      case JoinToken given -> given.token().strip();
      case JoinTokenFile inFile -> read(inFile.file(), "join token");
      case ServiceAccountToken projected -> read(projected.file(), "service-account token");
    };
  }

  /** A join token given as itself (from the environment; never from the command line). */
  record JoinToken(String token) implements BootstrapCredential {}

  /** A join token in a file, read at each enrolment. */
  record JoinTokenFile(Path file) implements BootstrapCredential {}

  /** The projected service-account token of the agent's pod. */
  record ServiceAccountToken(Path file) implements BootstrapCredential {}

  private static String read(Path file, String what) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the " + what + " from " + file, e);
    }
  }
}
