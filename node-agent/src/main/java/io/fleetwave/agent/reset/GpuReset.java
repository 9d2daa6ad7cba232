package io.fleetwave.agent.reset;

import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.agent.host.CommandRunner;
import io.fleetwave.agent.host.CommandRunner.CommandResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A targeted reset of one GPU (hardware-model rule 2): refused while compute processes run, SR-IOV
 * VFs are enabled, or another client holds the device; then {@code nvidia-smi -r -i <bus id>} from
 * the driver root, or the sysfs PCI function reset where nvidia-smi is absent. Only the target's
 * bus id is ever named, so no other GPU is touched. Where the targeted reset cannot be done, a node
 * reboot happens only if the policy allows it.
 */
public final class GpuReset {
  private final Path hostRoot;
  private final Optional<Path> nvidiaSmi;
  private final DeviceHolders holders;
  private final CommandRunner runner;
  private final ResetPolicy policy;
  private final NodeReboot reboot;

  public GpuReset(
      Path hostRoot,
      Optional<Path> nvidiaSmi,
      CommandRunner runner,
      ResetPolicy policy,
      NodeReboot reboot) {
    this.hostRoot = hostRoot;
    this.nvidiaSmi = nvidiaSmi;
    this.holders = new DeviceHolders(hostRoot);
    this.runner = runner;
    this.policy = policy;
    this.reboot = reboot;
  }

  public DeviceHolders holders() {
    return holders;
  }

  /**
   * Resets the target if nothing blocks it.
   *
   * @param processes compute processes on the target now (from NVML)
   * @param vfsEnabled SR-IOV VFs enabled on the target now
   */
  public ResetOutcome reset(ResetTarget target, List<GpuProcess> processes, int vfsEnabled) {
    Optional<ResetOutcome.Refused> refused = refusal(target, processes, vfsEnabled);
    return refused.isPresent() ? refused.get() : perform(target);
  }

  /** Why the target cannot be reset now, if anything blocks it (checked before every reset). */
  public Optional<ResetOutcome.Refused> refusal(
      ResetTarget target, List<GpuProcess> processes, int vfsEnabled) {
    if (!processes.isEmpty()) {
      String names =
          processes.stream()
              .map(p -> p.name() + " (pid " + p.pid() + ")")
              .collect(Collectors.joining(", "));
      return Optional.of(new ResetOutcome.Refused("compute processes run on it: " + names, names));
    }
    if (vfsEnabled > 0) {
      return Optional.of(
          new ResetOutcome.Refused(
              "SR-IOV VFs are enabled (" + vfsEnabled + "); disable them first", "VFs enabled"));
    }
    List<String> held = holders.holdersOf(target.minor());
    if (!held.isEmpty()) {
      String names = String.join(", ", held);
      return Optional.of(new ResetOutcome.Refused("held by " + names, names));
    }
    return Optional.empty();
  }

  /**
   * Resets the target without checking the gates again (the caller checked {@link #refusal} and
   * released its own handles); falls back to a reboot only where the policy allows.
   */
  public ResetOutcome perform(ResetTarget target) {
    String failure;
    if (nvidiaSmi.isPresent()) {
      List<String> argv = List.of(nvidiaSmi.get().toString(), "-r", "-i", target.pciBusId());
      try {
        CommandResult result = runner.run(argv, policy.commandTimeout());
        if (result.succeeded()) {
          return new ResetOutcome.Reset("nvidia-smi -r -i " + target.pciBusId());
        }
        failure = result.describe();
      } catch (CommandRunner.CommandTimeoutException
          | java.io.UncheckedIOException
          | io.fleetwave.agent.host.UntrustedPathException e) {
        failure = e.getMessage();
      }
    } else {
      Path sysfsReset =
          hostRoot.resolve("sys/bus/pci/devices").resolve(target.pciBusId()).resolve("reset");
      if (!Files.exists(sysfsReset)) {
        failure =
            "no nvidia-smi under the driver root and no "
                + "sys/bus/pci/devices/"
                + target.pciBusId()
                + "/reset";
      } else {
        try {
          Files.writeString(sysfsReset, "1");
          return new ResetOutcome.Reset("sysfs PCI reset of " + target.pciBusId());
        } catch (IOException e) {
          failure = "sysfs PCI reset of " + target.pciBusId() + " failed: " + e.getMessage();
        }
      }
    }
    if (policy.rebootAllowed()) {
      String reason = "targeted reset impossible (" + failure + "); node reboot allowed by policy";
      reboot.reboot(reason);
      return new ResetOutcome.Rebooting(reason);
    }
    return new ResetOutcome.Refused(
        "targeted reset failed (" + failure + ") and the node's policy does not allow a reboot",
        null);
  }
}
