package io.fleetwave.core.mig;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

final class MigTestFiles {
  private MigTestFiles() {}

  static String read(String name) {
    try (InputStream in = MigTestFiles.class.getResourceAsStream("/mig/" + name)) {
      if (in == null) {
        throw new IllegalStateException("test resource /mig/" + name + " is missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
