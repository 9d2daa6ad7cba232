package io.fleetwave.agent.sriov;

import io.fleetwave.agent.host.CommandRunner;
import io.fleetwave.agent.host.CommandRunner.CommandResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Enables and disables the SR-IOV VFs of one NVIDIA PF. With NVIDIA's {@code
 * usr/lib/nvidia/sriov-manage} present (vGPU host driver) it is used, since it also binds the VFs
 * to the right driver; it enables all VFs of a PF, so a partial count goes through {@code
 * sriov_numvfs}. Without it, {@code sriov_numvfs} is written (through 0 first: the kernel refuses a
 * change from one non-zero count to another). Enabling or disabling VFs wipes the PF's GPU
 * instances (hardware-model rule 4); callers order their steps accordingly.
 */
public final class SriovControl {
  static final String SRIOV_MANAGE = "usr/lib/nvidia/sriov-manage";

  private final Path hostRoot;
  private final PciSysfs pci;
  private final CommandRunner runner;
  private final Duration commandTimeout;

  public SriovControl(Path hostRoot, CommandRunner runner, Duration commandTimeout) {
    this.hostRoot = hostRoot;
    this.pci = new PciSysfs(hostRoot);
    this.runner = runner;
    this.commandTimeout = commandTimeout;
  }

  public PciSysfs pci() {
    return pci;
  }

  /** Whether NVIDIA's sriov-manage is installed on the host. */
  public boolean hasSriovManage() {
    return Files.isRegularFile(hostRoot.resolve(SRIOV_MANAGE));
  }

  /** Sets the number of enabled VFs of a PF (0 disables them). */
  public void setVfs(String pfBdf, int count) {
    String bdf = PciSysfs.normalize(pfBdf);
    if (!Files.isDirectory(pci.device(bdf))) {
      throw new SriovException("PF " + bdf + ": no such PCI function under sys/bus/pci/devices");
    }
    int total = pci.totalVfs(bdf);
    if (total == 0) {
      throw new SriovException(
          "PF " + bdf + ": not SR-IOV capable (sriov_totalvfs is 0 or absent)");
    }
    if (count < 0 || count > total) {
      throw new SriovException(
          "PF " + bdf + ": cannot enable " + count + " VFs: sriov_totalvfs is " + total);
    }
    if (pci.enabledVfs(bdf) == count) {
      return;
    }
    if (hasSriovManage() && (count == 0 || count == total)) {
      runSriovManage(count == 0 ? "-d" : "-e", bdf);
    } else {
      writeNumVfs(bdf, count);
    }
  }

  private void runSriovManage(String flag, String bdf) {
    List<String> argv = List.of(hostRoot.resolve(SRIOV_MANAGE).toString(), flag, bdf);
    CommandResult result = runner.run(argv, commandTimeout);
    if (!result.succeeded()) {
      throw new SriovException("PF " + bdf + ": " + result.describe());
    }
  }

  private void writeNumVfs(String bdf, int count) {
    Path numVfs = pci.device(bdf).resolve("sriov_numvfs");
    try {
      if (count != 0 && pci.enabledVfs(bdf) != 0) {
        Files.writeString(numVfs, "0");
      }
      Files.writeString(numVfs, Integer.toString(count));
    } catch (IOException e) {
      throw new SriovException("PF " + bdf + ": cannot write " + count + " to " + numVfs, e);
    }
  }
}
