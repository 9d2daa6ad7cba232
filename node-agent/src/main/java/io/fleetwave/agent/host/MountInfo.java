package io.fleetwave.agent.host;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The mounts of a proc/PID/mountinfo file. Read-only is decided from the mount flags (per-mount
 * options and super-block options), never from a write attempt (seed 000).
 */
public record MountInfo(List<Mount> mounts) {

  /** One mountinfo line: mount point, per-mount options, file system type, super options. */
  public record Mount(
      String mountPoint, List<String> options, String fsType, List<String> superOptions) {
    public boolean readOnly() {
      return options.contains("ro") || superOptions.contains("ro");
    }

    public String describe() {
      return mountPoint + " (" + fsType + ", " + String.join(",", options) + ")";
    }
  }

  public MountInfo {
    mounts = List.copyOf(mounts);
  }

  /** Parses mountinfo; malformed lines are skipped (a partial file still tells about the root). */
  public static MountInfo parse(String text) {
    List<Mount> mounts = new ArrayList<>();
    for (String line : text.lines().toList()) {
      String[] parts = line.strip().split(" ", -1);
      int separator = Arrays.asList(parts).indexOf("-");
      if (separator < 6 || parts.length < separator + 3) {
        continue;
      }
      mounts.add(
          new Mount(
              unescape(parts[4]),
              List.of(parts[5].split(",")),
              parts[separator + 1],
              parts.length > separator + 3 ? List.of(parts[separator + 3].split(",")) : List.of()));
    }
    return new MountInfo(mounts);
  }

  /** The mount that covers {@code path} (longest mount-point prefix; the last one wins on ties). */
  public Optional<Mount> covering(String path) {
    return mounts.stream()
        .filter(m -> covers(m.mountPoint(), path))
        .reduce((a, b) -> b.mountPoint().length() >= a.mountPoint().length() ? b : a);
  }

  private static boolean covers(String mountPoint, String path) {
    if (mountPoint.equals("/")) {
      return true;
    }
    return path.equals(mountPoint) || path.startsWith(mountPoint + "/");
  }

  private static String unescape(String field) {
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\");
  }
}
