package io.fleetwave.simulator;

import io.fleetwave.agent.modules.ModuleBusyException;
import io.fleetwave.agent.modules.ModuleException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The NVIDIA kernel modules of a simulated node with their dependencies: nvidia_uvm, nvidia_modeset
 * and nvidia_peermem depend on nvidia, nvidia_drm on nvidia_modeset. Unloading behaves like rmmod
 * (EBUSY while dependents are loaded or anything holds the device files); loading behaves like
 * modprobe (dependencies first). A refusal is the agent's own ({@link ModuleBusyException} naming
 * the holders, {@link ModuleException} otherwise), as the agent reports a real rmmod's. Guarded by
 * the backend's lock.
 */
final class SimulatedKernelModules {
  static final String NVIDIA = "nvidia";
  static final String UVM = "nvidia_uvm";
  static final String MODESET = "nvidia_modeset";
  static final String DRM = "nvidia_drm";
  static final String PEERMEM = "nvidia_peermem";

  /** Each module and what it depends on, in load order. */
  static final Map<String, List<String>> DEPENDENCIES = dependencies();

  private final Set<String> loaded = new LinkedHashSet<>(DEPENDENCIES.keySet());

  private static Map<String, List<String>> dependencies() {
    Map<String, List<String>> deps = new LinkedHashMap<>();
    deps.put(NVIDIA, List.of());
    deps.put(UVM, List.of(NVIDIA));
    deps.put(MODESET, List.of(NVIDIA));
    deps.put(DRM, List.of(MODESET));
    deps.put(PEERMEM, List.of(NVIDIA));
    return deps;
  }

  /** Loaded modules in load (dependency) order. */
  List<String> loaded() {
    return DEPENDENCIES.keySet().stream().filter(loaded::contains).toList();
  }

  boolean isLoaded(String module) {
    return loaded.contains(module);
  }

  /**
   * The module's reference count as lsmod shows it: loaded dependents plus device-file holders.
   *
   * @param deviceHolders given a module, who holds it open through /dev/nvidia*
   */
  int refcount(String module, Function<String, List<String>> deviceHolders) {
    return dependentsLoaded(module).size() + deviceHolders.apply(module).size();
  }

  void unload(String module, Function<String, List<String>> deviceHolders) {
    requireKnown(module);
    if (!loaded.contains(module)) {
      throw new ModuleException("module " + module + ": not loaded");
    }
    List<String> holders = new ArrayList<>(dependentsLoaded(module));
    holders.addAll(deviceHolders.apply(module));
    if (!holders.isEmpty()) {
      throw new ModuleBusyException(
          module,
          holders,
          "module " + module + ": EBUSY: module is in use by " + String.join(", ", holders));
    }
    loaded.remove(module);
  }

  void load(String module) {
    requireKnown(module);
    for (String dependency : DEPENDENCIES.get(module)) {
      load(dependency);
    }
    loaded.add(module);
  }

  void loadAll() {
    DEPENDENCIES.keySet().forEach(this::load);
  }

  private List<String> dependentsLoaded(String module) {
    return DEPENDENCIES.entrySet().stream()
        .filter(e -> e.getValue().contains(module) && loaded.contains(e.getKey()))
        .map(e -> "module " + e.getKey())
        .toList();
  }

  private static void requireKnown(String module) {
    if (!DEPENDENCIES.containsKey(module)) {
      throw new ModuleException(
          "module "
              + module
              + ": unknown module (known: "
              + String.join(", ", DEPENDENCIES.keySet())
              + ")");
    }
  }
}
