package io.fleetwave.agent.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Builds a host root file tree in a test directory, one shape per host kind. */
public final class HostTree {
  public static final String RO_ROOT_MOUNTINFO =
      "22 1 0:21 / / ro,relatime shared:1 - squashfs /dev/loop0 ro\n"
          + "30 22 0:26 / /var rw,relatime shared:2 - xfs /dev/sda5 rw\n";
  public static final String RW_ROOT_MOUNTINFO =
      "25 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro\n"
          + "26 25 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw\n";

  private final Path root;

  public HostTree(Path root) {
    this.root = root;
  }

  /** A Talos host (v1.13.0, its kernel) with a read-only root: the agents' usual test host. */
  public static HostTree talos(Path root) {
    return new HostTree(root)
        .osRelease("talos", "v1.13.0")
        .kernel("6.18.29-talos")
        .mountinfo(RO_ROOT_MOUNTINFO);
  }

  public Path root() {
    return root;
  }

  public HostTree file(String relative, String content) {
    Path file = root.resolve(relative);
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  public HostTree executable(String relative, String script) {
    file(relative, script);
    try {
      Files.setPosixFilePermissions(
          root.resolve(relative), PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  public HostTree dir(String relative) {
    try {
      Files.createDirectories(root.resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  public HostTree symlink(String relative, String target) {
    Path link = root.resolve(relative);
    try {
      Files.createDirectories(link.getParent());
      Files.createSymbolicLink(link, Path.of(target));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  public HostTree osRelease(String id, String versionId) {
    return file(
        "etc/os-release", "NAME=\"" + id + "\"\nID=" + id + "\nVERSION_ID=\"" + versionId + "\"\n");
  }

  public HostTree kernel(String release) {
    return file("proc/sys/kernel/osrelease", release + "\n");
  }

  public HostTree hostname(String name) {
    return file("etc/hostname", name + "\n");
  }

  /** The boot id the kernel gives this boot; a new one means the host rebooted. */
  public HostTree bootId(String id) {
    return file("proc/sys/kernel/random/boot_id", id + "\n");
  }

  public HostTree mountinfo(String text) {
    return file("proc/1/mountinfo", text);
  }

  /** The NVML library (a placeholder file) and nvidia-smi under a driver root. */
  public HostTree driver(String driverRoot, String libDir) {
    String base = driverRoot.replaceFirst("^/+", "");
    String prefix = base.isEmpty() ? "" : base + "/";
    file(prefix + libDir + "/libnvidia-ml.so.1", "not a real library");
    return executable(prefix + "bin/nvidia-smi", "#!/bin/sh\nexit 0\n");
  }

  /** dev/nvidiactl and dev/nvidia0..n-1 under a device root (plain files stand in for nodes). */
  public HostTree devices(String deviceRoot, int gpus) {
    String base = deviceRoot.replaceFirst("^/+", "");
    String prefix = base.isEmpty() ? "" : base + "/";
    file(prefix + "dev/nvidiactl", "");
    for (int i = 0; i < gpus; i++) {
      file(prefix + "dev/nvidia" + i, "");
    }
    return this;
  }

  /** An NVIDIA PF in sysfs with SR-IOV capability. */
  public HostTree pf(String bdf, int totalVfs, int enabledVfs) {
    file("sys/bus/pci/devices/" + bdf + "/vendor", "0x10de\n");
    file("sys/bus/pci/devices/" + bdf + "/sriov_totalvfs", totalVfs + "\n");
    return file("sys/bus/pci/devices/" + bdf + "/sriov_numvfs", enabledVfs + "\n");
  }
}
