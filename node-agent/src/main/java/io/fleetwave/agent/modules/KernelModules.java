package io.fleetwave.agent.modules;

import io.fleetwave.agent.host.CommandRunner;
import io.fleetwave.agent.host.CommandRunner.CommandResult;
import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.events.node.DriverProvider;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Loads and unloads the NVIDIA kernel modules where a driver container provides the driver
 * (hardware-model rule 8): unload in reverse dependency order, load in dependency order, each step
 * a bounded modprobe/rmmod. On hosts whose modules come with the OS image (Talos, COS) every change
 * is refused: there a driver change is an OS-image change (seed 001).
 */
public final class KernelModules {
  /** Dependencies first: uvm and modeset need nvidia, drm needs modeset; peermem is optional. */
  public static final List<String> LOAD_ORDER =
      List.of("nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm", "nvidia_peermem");

  public static final List<String> UNLOAD_ORDER =
      List.of("nvidia_drm", "nvidia_modeset", "nvidia_uvm", "nvidia_peermem", "nvidia");

  private static final String OPTIONAL = "nvidia_peermem";

  private final HostFacts facts;
  private final ProcModules modules;
  private final CommandRunner runner;
  private final Duration timeout;

  public KernelModules(HostFacts facts, CommandRunner runner, Duration timeout) {
    this.facts = facts;
    this.modules = new ProcModules(facts.hostRoot());
    this.runner = runner;
    this.timeout = timeout;
  }

  /**
   * Unloads the loaded NVIDIA modules in reverse dependency order, for a change to {@code
   * targetDriverVersion}.
   */
  public ModuleChange unload(String targetDriverVersion) {
    refuseUnlessDriverContainer(targetDriverVersion);
    Map<String, ProcModules.LoadedModule> loaded = modules.loaded();
    List<String> done = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (String module : UNLOAD_ORDER) {
      if (!loaded.containsKey(module)) {
        skipped.add(module + ": not loaded");
        continue;
      }
      CommandResult result = runner.run(List.of("rmmod", module), timeout);
      if (!result.succeeded()) {
        throw failure(module, result, done);
      }
      done.add(module);
    }
    return new ModuleChange(done, skipped);
  }

  /** Loads the NVIDIA modules in dependency order; an absent optional module is skipped. */
  public ModuleChange load(String targetDriverVersion) {
    refuseUnlessDriverContainer(targetDriverVersion);
    List<String> done = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (String module : LOAD_ORDER) {
      CommandResult result = runner.run(List.of("modprobe", module), timeout);
      if (result.succeeded()) {
        done.add(module);
      } else if (module.equals(OPTIONAL)) {
        skipped.add(module + ": " + result.describe());
      } else {
        throw new ModuleException(
            "loading " + module + " failed: " + result.describe() + loadedBefore(done, "loaded"));
      }
    }
    return new ModuleChange(done, skipped);
  }

  private void refuseUnlessDriverContainer(String targetDriverVersion) {
    DriverProvider provider = facts.os().driverProvider();
    if (provider == DriverProvider.OS_IMAGE) {
      throw new ModuleException(
          "the driver comes with the OS image: a driver change needs an OS image with driver "
              + targetDriverVersion
              + " ("
              + facts.os().hostKind().wireName()
              + " "
              + facts.os().osVersion()
              + " does not let workloads load kernel modules)");
    }
    if (provider != DriverProvider.DRIVER_CONTAINER) {
      throw new ModuleException(
          "kernel modules are changed only where a driver container provides the driver; this host's"
              + " driver provider is "
              + provider.wireName()
              + " ("
              + facts.reasons().getOrDefault("driverProvider", "")
              + ")");
    }
  }

  private ModuleException failure(String module, CommandResult result, List<String> done) {
    String output = (result.stderr() + " " + result.stdout()).toLowerCase(Locale.ROOT);
    if (!(output.contains("in use") || output.contains("ebusy") || output.contains("busy"))) {
      return new ModuleException(
          "unloading " + module + " failed: " + result.describe() + loadedBefore(done, "unloaded"));
    }
    List<String> holders = holders(module);
    int refcount = modules.module(module).map(ProcModules.LoadedModule::refcount).orElse(0);
    return new ModuleBusyException(
        module,
        holders,
        "unloading "
            + module
            + " failed: EBUSY (refcount "
            + refcount
            + "); held by "
            + (holders.isEmpty() ? "nothing the agent can see" : String.join(", ", holders))
            + loadedBefore(done, "unloaded"));
  }

  /**
   * Modules using it (sys/module holders and proc/modules users), then processes on dev/nvidia*.
   */
  List<String> holders(String module) {
    TreeSet<String> moduleHolders = new TreeSet<>(modules.holders(module));
    modules.module(module).ifPresent(m -> moduleHolders.addAll(m.usedBy()));
    List<String> holders = new ArrayList<>();
    moduleHolders.forEach(m -> holders.add("module " + m));
    holders.addAll(deviceProcesses());
    return holders;
  }

  private List<String> deviceProcesses() {
    Path proc = facts.hostRoot().resolve("proc");
    TreeSet<Long> pids = new TreeSet<>();
    try (DirectoryStream<Path> entries =
        Files.newDirectoryStream(proc, p -> p.getFileName().toString().matches("\\d+"))) {
      for (Path pidDir : entries) {
        if (holdsNvidiaDevice(pidDir.resolve("fd"))) {
          pids.add(Long.parseLong(pidDir.getFileName().toString()));
        }
      }
    } catch (IOException e) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    for (long pid : pids) {
      String name;
      try {
        name = Files.readString(proc.resolve(pid + "/comm")).strip();
      } catch (IOException e) {
        name = "unknown";
      }
      names.add(name + " (pid " + pid + ")");
    }
    return names;
  }

  private static boolean holdsNvidiaDevice(Path fdDir) {
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(fdDir)) {
      for (Path fd : fds) {
        if (Files.isSymbolicLink(fd)
            && Files.readSymbolicLink(fd).toString().matches(".*/dev/nvidia.*")) {
          return true;
        }
      }
    } catch (IOException e) {
      // gone or not ours to inspect
    }
    return false;
  }

  private static String loadedBefore(List<String> done, String verb) {
    return done.isEmpty()
        ? ""
        : " (" + verb + " before the failure: " + String.join(", ", done) + ")";
  }
}
