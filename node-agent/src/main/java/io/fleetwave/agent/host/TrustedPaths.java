package io.fleetwave.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Decides whether the agent, which runs as root on a real node, may load a library (NVML) or run a
 * binary (nvidia-smi, sriov-manage, modprobe): only if nobody but a trusted owner can have put it
 * there or replace it. The path is walked from {@code /} one component at a time, following every
 * symbolic link as the kernel would (to the file actually loaded); each directory passed, each link
 * and the file itself must be owned by a trusted uid, and the directories and the file must not be
 * writable by group or others. A directory with the sticky bit (such as {@code /tmp}) may be: there
 * only an entry's owner can replace the entry, and that owner is checked next.
 *
 * <p>Trusted owners are root and the agent's own uid ({@link #rootOrSelf()}): an agent running as
 * root trusts root only; an agent running as another user (tests) can already write its own files,
 * so trusting them adds nothing an attacker could use.
 */
public final class TrustedPaths {
  private static final int GROUP_OR_OTHERS_WRITE = 0022;
  private static final int STICKY = 01000;
  private static final int TYPE_MASK = 0170000;
  private static final int DIRECTORY = 0040000;
  private static final int SYMLINK = 0120000;
  private static final int MAX_LINKS = 40; // as the kernel's ELOOP bound

  private final Set<Integer> owners;

  private TrustedPaths(Set<Integer> owners) {
    if (owners.isEmpty()) {
      throw new IllegalArgumentException("at least one trusted owner");
    }
    this.owners = Set.copyOf(owners);
  }

  /** Trusts files owned by these uids. */
  public static TrustedPaths ownedBy(Set<Integer> uids) {
    return new TrustedPaths(uids);
  }

  /** Trusts root and the uid the agent runs as (the same when it runs as root). */
  public static TrustedPaths rootOrSelf() {
    return ownedBy(Set.copyOf(java.util.List.of(0, currentUid().orElse(0))));
  }

  /** The effective uid of this process, from {@code /proc/self/status}; empty off Linux. */
  static Optional<Integer> currentUid() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return Optional.of(Integer.parseInt(line.substring(4).strip().split("\\s+", 3)[1]));
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux, or no procfs: root only.
    }
    return Optional.empty();
  }

  /**
   * Checks {@code file} for {@code purpose} (e.g. "NVML library", "nvidia-smi").
   *
   * @return the file's real path (links resolved), the one to load
   * @throws UntrustedPathException naming the offending path, its owner and mode, or why the path
   *     could not be checked (missing, a loop of links, unreadable)
   */
  public Path check(Path file, String purpose) {
    Path root = file.toAbsolutePath().getRoot();
    Path current = root;
    requireTrusted(file, purpose, root, attributes(file, purpose, root));
    Deque<String> remaining = new ArrayDeque<>();
    components(file.toAbsolutePath()).forEach(remaining::addLast);
    int links = 0;
    while (!remaining.isEmpty()) {
      String name = remaining.removeFirst();
      if (name.equals(".")) {
        continue;
      }
      if (name.equals("..")) {
        current = current.getParent() == null ? current : current.getParent();
        continue;
      }
      Path next = current.resolve(name);
      Map<String, Object> attributes = attributes(file, purpose, next);
      int type = mode(attributes) & TYPE_MASK;
      if (type == SYMLINK) {
        requireOwner(file, purpose, next, attributes);
        if (++links > MAX_LINKS) {
          throw refused(file, purpose, "more than " + MAX_LINKS + " symbolic links (a loop?)");
        }
        Path target = readLink(file, purpose, next);
        components(target).reversed().forEach(remaining::addFirst);
        if (target.isAbsolute()) {
          current = root;
        }
        continue;
      }
      if (!remaining.isEmpty() && type != DIRECTORY) {
        throw refused(file, purpose, next + " is not a directory");
      }
      requireTrusted(file, purpose, next, attributes);
      current = next;
    }
    return current;
  }

  private void requireTrusted(Path file, String purpose, Path path, Map<String, Object> attrs) {
    requireOwner(file, purpose, path, attrs);
    int mode = mode(attrs);
    boolean directory = (mode & TYPE_MASK) == DIRECTORY;
    if ((mode & GROUP_OR_OTHERS_WRITE) != 0 && !(directory && (mode & STICKY) != 0)) {
      throw refused(
          file,
          purpose,
          path
              + " is writable by "
              + ((mode & 0020) != 0 && (mode & 0002) != 0
                  ? "group and others"
                  : (mode & 0020) != 0 ? "its group" : "others")
              + " ("
              + describe(path, attrs)
              + ")");
    }
  }

  private void requireOwner(Path file, String purpose, Path path, Map<String, Object> attrs) {
    if (!owners.contains(uid(attrs))) {
      throw refused(
          file, purpose, path + " is owned by someone else (" + describe(path, attrs) + ")");
    }
  }

  private UntrustedPathException refused(Path file, String purpose, String why) {
    return new UntrustedPathException(
        purpose
            + " "
            + file
            + " refused: "
            + why
            + "; the agent loads and runs only files owned by "
            + expected()
            + " on paths only their owner can write");
  }

  private String expected() {
    TreeSet<Integer> sorted = new TreeSet<>(owners);
    return sorted.stream()
        .map(uid -> uid == 0 ? "root" : "uid " + uid + " (the agent's own)")
        .collect(Collectors.joining(" or "));
  }

  private static String describe(Path path, Map<String, Object> attrs) {
    String name;
    try {
      name = Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName();
    } catch (IOException | RuntimeException e) {
      name = "?";
    }
    return "owner "
        + name
        + " (uid "
        + uid(attrs)
        + "), mode "
        + String.format("%04o", mode(attrs) & 07777);
  }

  private Map<String, Object> attributes(Path file, String purpose, Path path) {
    try {
      return Files.readAttributes(path, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      throw refused(file, purpose, path + " does not exist");
    } catch (IOException | UnsupportedOperationException e) {
      throw refused(file, purpose, "cannot read the owner and mode of " + path + ": " + e);
    }
  }

  private Path readLink(Path file, String purpose, Path link) {
    try {
      return Files.readSymbolicLink(link);
    } catch (IOException e) {
      throw refused(file, purpose, "cannot read the symbolic link " + link + ": " + e);
    }
  }

  private static java.util.List<String> components(Path path) {
    java.util.List<String> names = new java.util.ArrayList<>();
    path.forEach(name -> names.add(name.toString()));
    return names;
  }

  private static int mode(Map<String, Object> attrs) {
    return (Integer) attrs.get("mode");
  }

  private static int uid(Map<String, Object> attrs) {
    return (Integer) attrs.get("uid");
  }
}
