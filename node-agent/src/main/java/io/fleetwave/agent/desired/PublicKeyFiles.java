package io.fleetwave.agent.desired;

import io.fleetwave.events.security.TrustedKeys;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The control plane's public keys an agent trusts, read from files: each source is a PEM file, or a
 * directory whose every visible regular file is one (a mounted ConfigMap with one key per entry;
 * its {@code ..data} bookkeeping entries are hidden). Read again whenever a file changes (path,
 * size, modification time; a ConfigMap update swaps the files' targets), so a key added to or
 * retired from the ConfigMap takes effect in running agents, without a restart.
 *
 * <p>The first read must succeed ({@link #load}); a later change that cannot be read (a key being
 * written, a bad file) keeps the keys read last and logs why, once per change.
 */
public final class PublicKeyFiles implements Supplier<TrustedKeys> {
  private static final System.Logger LOG = System.getLogger(PublicKeyFiles.class.getName());

  private final List<Path> sources;
  private List<String> readStamp;
  private TrustedKeys keys;
  private List<String> failedStamp;

  private PublicKeyFiles(List<Path> sources) {
    this.sources = List.copyOf(sources);
  }

  /**
   * Reads the keys now.
   *
   * @throws IllegalArgumentException naming the file or directory that is missing, empty,
   *     unreadable or not an Ed25519 public key in PEM
   */
  public static PublicKeyFiles load(List<Path> sources) {
    if (sources.isEmpty()) {
      throw new IllegalArgumentException("--public-key: no key file given");
    }
    PublicKeyFiles files = new PublicKeyFiles(sources);
    List<Path> found = files.files();
    files.keys = read(found);
    files.readStamp = stamp(found);
    return files;
  }

  @Override
  public synchronized TrustedKeys get() {
    List<String> now;
    List<Path> found;
    try {
      found = files();
      now = stamp(found);
    } catch (IllegalArgumentException e) {
      logOnce(List.of(e.getMessage()), e.getMessage());
      return keys;
    }
    if (now.equals(readStamp)) {
      return keys;
    }
    try {
      TrustedKeys read = read(found);
      LOG.log(Level.INFO, "trusted command keys now {0} (were {1})", read.kids(), keys.kids());
      keys = read;
      readStamp = now;
      failedStamp = null;
    } catch (IllegalArgumentException e) {
      logOnce(now, e.getMessage());
    }
    return keys;
  }

  private void logOnce(List<String> stamp, String why) {
    if (!stamp.equals(failedStamp)) {
      failedStamp = stamp;
      LOG.log(Level.WARNING, "keeping the trusted keys {0}: {1}", keys.kids(), why);
    }
  }

  /** The key files the sources name now, in a stable order. */
  private List<Path> files() {
    List<Path> files = new ArrayList<>();
    for (Path source : sources) {
      if (Files.isDirectory(source)) {
        try (Stream<Path> entries = Files.list(source)) {
          List<Path> keys =
              entries
                  .filter(p -> !p.getFileName().toString().startsWith("."))
                  .filter(Files::isRegularFile)
                  .sorted()
                  .toList();
          if (keys.isEmpty()) {
            throw new IllegalArgumentException(
                "--public-key: " + source + " is a directory holding no key file");
          }
          files.addAll(keys);
        } catch (IOException e) {
          throw new IllegalArgumentException("--public-key: cannot list " + source + ": " + e, e);
        }
      } else {
        files.add(source);
      }
    }
    return files;
  }

  private static List<String> stamp(List<Path> files) {
    List<String> stamp = new ArrayList<>();
    for (Path file : files) {
      try {
        stamp.add(
            file.toRealPath()
                + " "
                + Files.size(file)
                + " "
                + Files.getLastModifiedTime(file).toMillis());
      } catch (IOException e) {
        stamp.add(file + " unreadable");
      }
    }
    return stamp;
  }

  private static TrustedKeys read(List<Path> files) {
    List<String> pems = new ArrayList<>();
    for (Path file : files) {
      String pem;
      try {
        pem = Files.readString(file);
      } catch (NoSuchFileException e) {
        throw new IllegalArgumentException(
            "--public-key: cannot read " + file + ": no such file", e);
      } catch (CharacterCodingException e) {
        throw notAPublicKey(file, "binary, not PEM text (DER? openssl pkey -pubin -outform PEM)");
      } catch (IOException e) {
        throw new IllegalArgumentException("--public-key: cannot read " + file + ": " + e, e);
      }
      try {
        TrustedKeys.kidOf(pem);
      } catch (IllegalArgumentException e) {
        throw notAPublicKey(file, e.getMessage());
      }
      pems.add(pem);
    }
    return TrustedKeys.of(pems);
  }

  private static IllegalArgumentException notAPublicKey(Path file, String why) {
    return new IllegalArgumentException(
        "--public-key: " + file + " is not an Ed25519 public key in PEM: " + why);
  }

  @Override
  public String toString() {
    return "PublicKeyFiles" + Objects.toString(sources);
  }
}
