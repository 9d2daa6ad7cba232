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
  String field();

  /** The credential itself; never logged. */
  String secret();

  /** A join token given as itself (from the environment; never from the command line). */
  record JoinToken(String token) implements BootstrapCredential {
    @Override
    public String field() {
      return "joinToken";
    }

    @Override
    public String secret() {
      return token.strip();
    }
  }

  /** A join token in a file, read at each enrolment. */
  record JoinTokenFile(Path file) implements BootstrapCredential {
    @Override
    public String field() {
      return "joinToken";
    }

    @Override
    public String secret() {
      return read(file, "join token");
    }
  }

  /** The projected service-account token of the agent's pod. */
  record ServiceAccountToken(Path file) implements BootstrapCredential {
    @Override
    public String field() {
      return "serviceAccountToken";
    }

    @Override
    public String secret() {
      return read(file, "service-account token");
    }
  }

  private static String read(Path file, String what) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the " + what + " from " + file, e);
    }
  }
}
