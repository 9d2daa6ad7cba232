package io.fleetwave.agent.sriov;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The PCI functions under {@code sys/bus/pci/devices} of a host root: NVIDIA physical functions,
 * their SR-IOV capability and their virtual functions.
 */
public final class PciSysfs {
  private static final String NVIDIA_VENDOR = "0x10de";

  private final Path devices;

  public PciSysfs(Path hostRoot) {
    this.devices = hostRoot.resolve("sys/bus/pci/devices");
  }

  /** A PCI function's directory (e.g. {@code sys/bus/pci/devices/0000:3b:00.0}). */
  public Path device(String bdf) {
    return devices.resolve(normalize(bdf));
  }

  /** NVIDIA physical functions that can do SR-IOV ({@code sriov_totalvfs > 0}), sorted by BDF. */
  public List<PhysicalFunction> sriovCapableNvidiaFunctions() {
    if (!Files.isDirectory(devices)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(devices)) {
      return entries
          .filter(
              d ->
                  readTrimmed(d.resolve("vendor"))
                      .filter(NVIDIA_VENDOR::equalsIgnoreCase)
                      .isPresent())
          .map(d -> new PhysicalFunction(d.getFileName().toString(), totalVfs(d), enabledVfs(d)))
          .filter(pf -> pf.totalVfs() > 0)
          .sorted(Comparator.comparing(PhysicalFunction::bdf))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + devices, e);
    }
  }

  /** {@code sriov_totalvfs} of a function; 0 when the function has no SR-IOV capability. */
  public int totalVfs(String bdf) {
    return totalVfs(device(bdf));
  }

  /** {@code sriov_numvfs} of a function; 0 when absent. */
  public int enabledVfs(String bdf) {
    return enabledVfs(device(bdf));
  }

  /** The BDFs of a PF's enabled VFs, from its {@code virtfnN} links, in VF order. */
  public List<String> virtualFunctions(String pfBdf) {
    Path pf = device(pfBdf);
    List<String> vfs = new ArrayList<>();
    for (int n = 0; ; n++) {
      Path link = pf.resolve("virtfn" + n);
      if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        return vfs;
      }
      try {
        Path target = Files.isSymbolicLink(link) ? Files.readSymbolicLink(link) : link;
        vfs.add(target.getFileName().toString());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + link, e);
      }
    }
  }

  /**
   * Normalizes an NVML bus id ({@code 00000000:3B:00.0}) to the sysfs form ({@code 0000:3b:00.0}).
   */
  public static String normalize(String bdf) {
    String lower = bdf.strip().toLowerCase(java.util.Locale.ROOT);
    String[] parts = lower.split(":", -1);
    if (parts.length == 3 && parts[0].length() > 4) {
      return parts[0].substring(parts[0].length() - 4) + ":" + parts[1] + ":" + parts[2];
    }
    return lower;
  }

  static Optional<String> readTrimmed(Path file) {
    try {
      return Files.isRegularFile(file)
          ? Optional.of(Files.readString(file).strip())
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static int totalVfs(Path device) {
    return readInt(device.resolve("sriov_totalvfs"));
  }

  private static int enabledVfs(Path device) {
    return readInt(device.resolve("sriov_numvfs"));
  }

  private static int readInt(Path file) {
    return readTrimmed(file)
        .map(
            v -> {
              try {
                return Integer.parseInt(v);
              } catch (NumberFormatException e) {
                throw new SriovException(file + " holds '" + v + "', not a number");
              }
            })
        .orElse(0);
  }

  /** An NVIDIA PF with its SR-IOV counts. */
  public record PhysicalFunction(String bdf, int totalVfs, int enabledVfs) {}
}
