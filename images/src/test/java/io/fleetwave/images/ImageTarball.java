package io.fleetwave.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * An image tarball as Jib writes it, read without a container runtime: an OCI image layout ({@code
 * oci-layout}, {@code index.json}, {@code blobs/sha256/...}) or a {@code docker save} archive
 * ({@code manifest.json}, the config, one {@code .tar.gz} per layer). Digests are checked: the
 * config and manifest against the digests that name them (OCI), every layer against its {@code
 * diff_id} in the config.
 */
final class ImageTarball {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long SMALL = 1 << 20;

  /** What a layer visitor sees: the layer's index (0 = the base's lowest) and one tar entry. */
  interface LayerVisitor {
    void visit(int layer, TarArchiveEntry entry, InputStream content) throws IOException;
  }

  private final Path file;
  private final String format;
  private final List<String> names;
  private final JsonNode config;
  private final List<String> layerBlobs;

  private ImageTarball(
      Path file, String format, List<String> names, JsonNode config, List<String> layerBlobs) {
    this.file = file;
    this.format = format;
    this.names = names;
    this.config = config;
    this.layerBlobs = layerBlobs;
  }

  static ImageTarball open(Path file) throws IOException {
    Map<String, byte[]> small = new HashMap<>();
    try (TarArchiveInputStream tar = tar(Files.newInputStream(file))) {
      for (TarArchiveEntry entry; (entry = tar.getNextEntry()) != null; ) {
        if (entry.isFile() && entry.getSize() <= SMALL) {
          small.put(entry.getName(), tar.readAllBytes());
        }
      }
    }
    if (small.containsKey("index.json")) {
      JsonNode index = JSON.readTree(small.get("index.json"));
      if (index.path("manifests").size() != 1) {
        throw new IOException(file + ": expected one manifest in index.json, got " + index);
      }
      JsonNode descriptor = index.path("manifests").get(0);
      JsonNode manifest = JSON.readTree(blob(file, small, descriptor.path("digest").asText()));
      JsonNode config =
          JSON.readTree(blob(file, small, manifest.path("config").path("digest").asText()));
      List<String> layers = new ArrayList<>();
      for (JsonNode layer : manifest.path("layers")) {
        layers.add(blobPath(layer.path("digest").asText()));
      }
      String name =
          descriptor.path("annotations").path("org.opencontainers.image.ref.name").asText("");
      return new ImageTarball(
          file, "oci", name.isEmpty() ? List.of() : List.of(name), config, layers);
    }
    if (small.containsKey("manifest.json")) {
      JsonNode manifests = JSON.readTree(small.get("manifest.json"));
      if (manifests.size() != 1) {
        throw new IOException(file + ": expected one image in manifest.json, got " + manifests);
      }
      JsonNode manifest = manifests.get(0);
      byte[] config = small.get(manifest.path("Config").asText());
      if (config == null) {
        throw new IOException(file + ": no config " + manifest.path("Config"));
      }
      List<String> names = new ArrayList<>();
      manifest.path("RepoTags").forEach(tag -> names.add(tag.asText()));
      List<String> layers = new ArrayList<>();
      manifest.path("Layers").forEach(layer -> layers.add(layer.asText()));
      return new ImageTarball(file, "docker", names, JSON.readTree(config), layers);
    }
    throw new IOException(file + ": neither an OCI layout (index.json) nor a docker archive");
  }

  Path file() {
    return file;
  }

  /** {@code oci} or {@code docker}. */
  String format() {
    return format;
  }

  /** The image names the tarball carries (OCI ref.name annotation, docker RepoTags). */
  List<String> names() {
    return names;
  }

  /** The image config's {@code config} object (Entrypoint, Cmd, User, Env...). */
  JsonNode runConfig() {
    return config.path("config");
  }

  List<String> strings(String field) {
    List<String> values = new ArrayList<>();
    runConfig().path(field).forEach(value -> values.add(value.asText()));
    return values;
  }

  Optional<String> env(String variable) {
    return strings("Env").stream()
        .filter(entry -> entry.startsWith(variable + "="))
        .map(entry -> entry.substring(variable.length() + 1))
        .findFirst();
  }

  /** The config's {@code architecture} (amd64, arm64...). */
  String architecture() {
    return config.path("architecture").asText();
  }

  /** The config's {@code os}. */
  String os() {
    return config.path("os").asText();
  }

  /** The whole image config (architecture, os, config, rootfs, history...). */
  JsonNode config() {
    return config;
  }

  List<String> diffIds() {
    List<String> ids = new ArrayList<>();
    config.path("rootfs").path("diff_ids").forEach(id -> ids.add(id.asText()));
    return ids;
  }

  /**
   * Streams every entry of every layer to {@code visitor}, and checks each layer's content against
   * its diff_id once read to its end.
   */
  void visitLayers(LayerVisitor visitor) throws IOException {
    List<String> diffIds = diffIds();
    if (diffIds.size() != layerBlobs.size()) {
      throw new IOException(
          file + ": " + layerBlobs.size() + " layers but " + diffIds.size() + " diff_ids");
    }
    int seen = 0;
    try (TarArchiveInputStream outer = tar(Files.newInputStream(file))) {
      for (TarArchiveEntry blob; (blob = outer.getNextEntry()) != null; ) {
        int layer = layerBlobs.indexOf(blob.getName());
        if (layer < 0) {
          continue;
        }
        MessageDigest sha256 = sha256();
        DigestInputStream uncompressed = new DigestInputStream(uncompressed(outer), sha256);
        TarArchiveInputStream inner = new TarArchiveInputStream(uncompressed);
        for (TarArchiveEntry entry; (entry = inner.getNextEntry()) != null; ) {
          visitor.visit(layer, entry, unclosable(inner));
        }
        uncompressed.transferTo(OutputStream.nullOutputStream());
        String actual = "sha256:" + HexFormat.of().formatHex(sha256.digest());
        if (!actual.equals(diffIds.get(layer))) {
          throw new IOException(
              file + ": layer " + layer + " is " + actual + ", its diff_id " + diffIds.get(layer));
        }
        seen++;
      }
    }
    if (seen != layerBlobs.size()) {
      throw new IOException(file + ": found " + seen + " of " + layerBlobs.size() + " layers");
    }
  }

  /** The path of an entry inside the image, without a leading "./" or "/". */
  static String path(TarArchiveEntry entry) {
    String name = entry.getName();
    while (name.startsWith("./") || name.startsWith("/")) {
      name = name.substring(name.startsWith("./") ? 2 : 1);
    }
    return name;
  }

  private static byte[] blob(Path file, Map<String, byte[]> small, String digest)
      throws IOException {
    byte[] bytes = small.get(blobPath(digest));
    if (bytes == null) {
      throw new IOException(file + ": no blob " + digest);
    }
    String actual = "sha256:" + HexFormat.of().formatHex(sha256().digest(bytes));
    if (!actual.equals(digest)) {
      throw new IOException(file + ": blob " + digest + " has digest " + actual);
    }
    return bytes;
  }

  private static String blobPath(String digest) {
    if (!digest.startsWith("sha256:")) {
      throw new IllegalArgumentException("not a sha256 digest: " + digest);
    }
    return "blobs/sha256/" + digest.substring("sha256:".length());
  }

  /** A layer blob's tar stream: Jib gzips layers, {@code docker save} does not. */
  private static InputStream uncompressed(InputStream blob) throws IOException {
    BufferedInputStream in = new BufferedInputStream(unclosable(blob));
    in.mark(2);
    boolean gzip = in.read() == 0x1f && in.read() == 0x8b;
    in.reset();
    return gzip ? new GZIPInputStream(in) : in;
  }

  /** A view of {@code in} that a visitor (or a reader it wraps around it) cannot close. */
  private static InputStream unclosable(InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public void close() {}
    };
  }

  private static TarArchiveInputStream tar(InputStream in) {
    return new TarArchiveInputStream(new BufferedInputStream(in, 1 << 16));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
