package io.fleetwave.controlplane.rollout.driver;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Job names derived from the request id: the same request always names the same Job, so a repeat
 * meets "already exists". A valid DNS-1123 label of at most 63 characters: {@value #PREFIX}, the
 * node's name as far as it fits (for people reading {@code kubectl get jobs}), and a hash of the
 * whole request id (which is what makes it unique).
 */
final class DriverJobNames {
  static final String PREFIX = "fleetwave-driver-";
  static final int MAX = 63;
  private static final int HASH_HEX = 12;

  private DriverJobNames() {}

  static String of(DriverChangeRequest request) {
    String hash = hash(request.id());
    int room = MAX - PREFIX.length() - 1 - HASH_HEX;
    String node = request.node().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-");
    if (node.length() > room) {
      node = node.substring(0, room);
    }
    node = node.replaceAll("^-+|-+$", "");
    return node.isEmpty() ? PREFIX + hash : PREFIX + node + "-" + hash;
  }

  private static String hash(String id) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, HASH_HEX);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
