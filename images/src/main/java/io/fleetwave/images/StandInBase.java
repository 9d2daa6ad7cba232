package io.fleetwave.images;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Writes the stand-in base image that the offline image check builds on, in place of {@code
 * eclipse-temurin:25-jre}, which no registry here can serve.
 *
 * <p>The tarball is in {@code docker save} format, the only format Jib reads for a {@code tar://}
 * base. Its config declares what the production base declares (as recorded for {@code
 * eclipse-temurin:25-jre} in docker-library/repo-info): {@code PATH} with {@code
 * /opt/java/openjdk/bin} first, {@code JAVA_HOME}, the locale, {@code ENTRYPOINT
 * ["/__cacert_entrypoint.sh"]} and, inherited from Ubuntu, {@code CMD ["/bin/bash"]}. Its one layer
 * holds only a marker file: no operating system, no JRE. An image built on it cannot run in a
 * container; it shows what Fleetwave's build puts on top of a base and how it overrides the base's
 * entrypoint and command.
 *
 * <p>The production base is a multi-platform index (linux/amd64, linux/arm64); Jib writes a tarball
 * for one platform only, so the stand-in is one tarball per platform, {@code
 * stand-in-base-<architecture>.tar}, each declaring its architecture. Their layers differ (the
 * marker names the architecture), as a real base's do, so an image shows which one it was built on.
 *
 * <p>The control-plane and node-agent builds run this file as a single-file program before their
 * image step (no classpath, no dependencies): {@code java StandInBase.java DIRECTORY}. The output
 * is byte-for-byte the same on every run (fixed times and owners), so Jib's base-layer cache keeps
 * one copy.
 */
public final class StandInBase {
  /** The marker file in the stand-in's only layer (a path inside the image, without leading /). */
  public static final String MARKER = "opt/java/openjdk/FLEETWAVE-STAND-IN";

  /** The environment the production base declares. */
  public static final List<String> ENV =
      List.of(
          "PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
          "JAVA_HOME=/opt/java/openjdk",
          "LANG=en_US.UTF-8",
          "LANGUAGE=en_US:en",
          "LC_ALL=en_US.UTF-8");

  /** The production base's entrypoint: Temurin's CA-certificate script, which then execs CMD. */
  public static final List<String> ENTRYPOINT = List.of("/__cacert_entrypoint.sh");

  /** The production base's command, inherited from its Ubuntu base. */
  public static final List<String> CMD = List.of("/bin/bash");

  /** Label that names an image as the stand-in (it is copied into every image built on it). */
  public static final String LABEL = "io.fleetwave.image.stand-in-base";

  /** The platforms Fleetwave's images are built for (all linux): Grace nodes are arm64. */
  public static final List<String> ARCHITECTURES = List.of("amd64", "arm64");

  static final String REPO_TAG = "fleetwave/stand-in-base:offline-check-";

  private StandInBase() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: java StandInBase.java DIRECTORY");
      System.exit(2);
    }
    for (String architecture : ARCHITECTURES) {
      write(Path.of(args[0]).resolve(fileName(architecture)), architecture);
    }
  }

  /** The name of the stand-in tarball of one architecture, in the directory main writes to. */
  public static String fileName(String architecture) {
    return "stand-in-base-" + architecture + ".tar";
  }

  /**
   * Writes the stand-in base tarball of {@code architecture} (one of {@link #ARCHITECTURES}) to
   * {@code target}, atomically: a reader never sees half.
   */
  public static void write(Path target, String architecture) throws IOException {
    if (!ARCHITECTURES.contains(architecture)) {
      throw new IllegalArgumentException(
          "architecture " + architecture + " is not one of " + ARCHITECTURES);
    }
    byte[] layer = layer(architecture);
    String diffId = "sha256:" + sha256(layer);
    String config =
        "{\"architecture\":"
            + quote(architecture)
            + ",\"os\":\"linux\",\"config\":{"
            + ("\"Env\":" + json(ENV))
            + (",\"Entrypoint\":" + json(ENTRYPOINT))
            + (",\"Cmd\":" + json(CMD))
            + (",\"Labels\":{" + quote(LABEL) + ":" + quote("no operating system, no JRE") + "}")
            + "},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":["
            + quote(diffId)
            + "]}}";
    String manifest =
        "[{\"Config\":\"config.json\",\"RepoTags\":["
            + quote(REPO_TAG + architecture)
            + "],\"Layers\":[\"layer.tar\"]}]";
    TarWriter archive = new TarWriter();
    archive.file("layer.tar", layer);
    archive.file("config.json", config.getBytes(StandardCharsets.UTF_8));
    archive.file("manifest.json", manifest.getBytes(StandardCharsets.UTF_8));

    Path parent = target.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path partial = Files.createTempFile(parent, target.getFileName().toString(), ".part");
    try {
      Files.write(partial, archive.finish());
      Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(partial);
    }
  }

  /** The layer's diff id ({@code sha256:...} of the uncompressed layer tar) of one architecture. */
  public static String diffId(String architecture) {
    return "sha256:" + sha256(layer(architecture));
  }

  private static byte[] layer(String architecture) {
    TarWriter layer = new TarWriter();
    layer.directory("opt/");
    layer.directory("opt/java/");
    layer.directory("opt/java/openjdk/");
    layer.directory("opt/java/openjdk/bin/");
    layer.file(
        MARKER,
        ("Stand-in base of Fleetwave's offline image check: no operating system, no JRE.\n"
                + ("Architecture: linux/" + architecture + "\n")
                + "Build with -Pimages for an image that runs"
                + " (docs/images.md, \"The offline check\").\n")
            .getBytes(StandardCharsets.UTF_8));
    return layer.finish();
  }

  private static String json(List<String> values) {
    return values.stream().map(StandInBase::quote).collect(Collectors.joining(",", "[", "]"));
  }

  private static String quote(String value) {
    return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Just enough of ustar for short names: regular files and directories, owned by 0:0, time 0. */
  private static final class TarWriter {
    private static final int BLOCK = 512;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    void directory(String name) {
      entry(name, new byte[0], 0755, '5');
    }

    void file(String name, byte[] content) {
      entry(name, content, 0644, '0');
    }

    private void entry(String name, byte[] content, int mode, char type) {
      byte[] header = new byte[BLOCK];
      put(header, 0, 100, name);
      put(header, 100, 8, octal(mode, 7));
      put(header, 108, 8, octal(0, 7));
      put(header, 116, 8, octal(0, 7));
      put(header, 124, 12, octal(content.length, 11));
      put(header, 136, 12, octal(0, 11));
      header[156] = (byte) type;
      put(header, 257, 6, "ustar");
      put(header, 263, 2, "00");
      put(header, 265, 32, "root");
      put(header, 297, 32, "root");
      // The checksum is computed with its own field read as eight spaces.
      Arrays.fill(header, 148, 156, (byte) ' ');
      int sum = 0;
      for (byte b : header) {
        sum += b & 0xff;
      }
      put(header, 148, 8, octal(sum, 6) + "\0 ");
      out.writeBytes(header);
      out.writeBytes(content);
      out.writeBytes(new byte[(BLOCK - content.length % BLOCK) % BLOCK]);
    }

    byte[] finish() {
      out.writeBytes(new byte[2 * BLOCK]);
      return out.toByteArray();
    }

    private static String octal(long value, int digits) {
      String octal = Long.toOctalString(value);
      if (octal.length() > digits) {
        throw new IllegalArgumentException(value + " does not fit a tar header field");
      }
      return "0".repeat(digits - octal.length()) + octal;
    }

    private static void put(byte[] header, int offset, int length, String value) {
      byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
      if (bytes.length > length) {
        throw new IllegalArgumentException("too long for a tar header field: " + value);
      }
      System.arraycopy(bytes, 0, header, offset, bytes.length);
    }
  }
}
