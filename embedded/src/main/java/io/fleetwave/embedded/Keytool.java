package io.fleetwave.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JDK's keytool, for the keys and certificates the embedded services and the tests make: the
 * one way they run it, bounded, with keytool's own words when it refuses.
 */
public final class Keytool {
  private static final Duration BOUND = Duration.ofSeconds(60);

  private Keytool() {}

  /**
   * A new EC (P-256) key pair under {@code alias} in the PKCS12 store {@code keystore}, with a
   * self-signed certificate for {@code dname} valid two days (a test's or the demo's lifetime).
   *
   * @param extensions keytool {@code -ext} values, e.g. {@code SAN=dns:localhost} or {@code bc:c}
   *     (a certificate authority)
   */
  public static void generateKeyPair(
      Path directory,
      String keystore,
      String password,
      String alias,
      String dname,
      String... extensions) {
    List<String> arguments = new ArrayList<>();
    arguments.addAll(
        List.of(
            "-genkeypair",
            "-alias",
            alias,
            "-keyalg",
            "EC",
            "-groupname",
            "secp256r1",
            "-dname",
            dname,
            "-validity",
            "2",
            "-storetype",
            "PKCS12",
            "-keystore",
            keystore,
            "-storepass",
            password));
    for (String extension : extensions) {
      arguments.add("-ext");
      arguments.add(extension);
    }
    run(directory, arguments.toArray(String[]::new));
  }

  /** The certificate of {@code alias} in {@code keystore}, written to {@code file} as PEM. */
  public static void exportCertificate(
      Path directory, String keystore, String password, String alias, String file) {
    run(
        directory,
        "-exportcert",
        "-rfc",
        "-alias",
        alias,
        "-keystore",
        keystore,
        "-storepass",
        password,
        "-file",
        file);
  }

  /**
   * Runs keytool in {@code directory}: relative file names resolve there, and keytool's output goes
   * to {@code keytool.log} there.
   *
   * @throws IllegalStateException naming the command (not its arguments: they hold store passwords)
   *     and keytool's output when it fails, or the bound when it does not finish
   */
  public static void run(Path directory, String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.add("-noprompt");
    command.addAll(List.of(arguments));
    Path log = directory.resolve("keytool.log");
    try {
      Process process =
          new ProcessBuilder(command)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!process.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "keytool " + arguments[0] + " did not finish within " + BOUND);
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            "keytool "
                + arguments[0]
                + " failed ("
                + process.exitValue()
                + "): "
                + Files.readString(log, StandardCharsets.UTF_8).strip());
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run keytool: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running keytool", e);
    }
  }
}
