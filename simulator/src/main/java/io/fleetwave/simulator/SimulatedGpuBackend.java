package io.fleetwave.simulator;

import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.gpu.GpuOperationException;
import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.agent.gpu.VirtualFunction;
import io.fleetwave.agent.modules.ModuleBusyException;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigProfile;
import io.fleetwave.events.gpu.VgpuType;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.simulator.SimulatedGpu.PlacedInstance;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The GPUs of one simulated node, refusing everything real hardware refuses
 * (docs/hardware-model.md): pending MIG mode until reset on models that need it, reset gates
 * (processes, handles, VFs), placements, slices and counts per model, SR-IOV toggles wiping GPU
 * instances, vGPU creatable lists, kernel module refcounts and reboot losses.
 *
 * <p>Thread-safe: one lock guards all state, so the agent thread and the disturbance calls of tests
 * and the demo may interleave. Change listeners run after the lock is released, on the caller's
 * thread.
 */
public final class SimulatedGpuBackend implements GpuBackend {
  private static final int[] HGX_BUSES = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};

  private final String nodeName;
  private final List<SimulatedGpu> gpus;
  private final SimulatedKernelModules modules = new SimulatedKernelModules();
  private final ReentrantLock lock = new ReentrantLock();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private long nextPid = 4200;
  private int bootCount;
  private String bootId;
  private String driverVersion;

  /**
   * @param nodeName seeds the deterministic UUIDs and the boot id
   * @param driverVersion what {@link #driverVersion()} reports
   * @param models the model of each GPU, in index order
   * @param sriovDriver whether the vGPU (vgpu-kvm) driver is installed, which exposes the models'
   *     SR-IOV VFs; without it a GPU reports no VFs
   */
  public SimulatedGpuBackend(
      String nodeName, String driverVersion, List<GpuModel> models, boolean sriovDriver) {
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.driverVersion = Objects.requireNonNull(driverVersion, "driverVersion");
    this.gpus =
        IntStream.range(0, models.size())
            .mapToObj(
                i ->
                    new SimulatedGpu(
                        i,
                        models.get(i),
                        gpuUuid(nodeName, i),
                        pciBusId(i),
                        sriovDriver ? models.get(i).sriovVfs() : 0))
            .toList();
    this.bootId = bootId(nodeName, 0);
  }

  static String gpuUuid(String nodeName, int index) {
    byte[] seed = ("fleetwave-sim/" + nodeName + "/gpu/" + index).getBytes(StandardCharsets.UTF_8);
    return "GPU-" + UUID.nameUUIDFromBytes(seed);
  }

  static String pciBusId(int index) {
    int bus = index < HGX_BUSES.length ? HGX_BUSES[index] : 0xe0 + index - HGX_BUSES.length;
    return "00000000:%02X:00.0".formatted(bus & 0xff);
  }

  private static String bootId(String nodeName, int boot) {
    return UUID.nameUUIDFromBytes(
            ("fleetwave-sim/" + nodeName + "/boot/" + boot).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  public String nodeName() {
    return nodeName;
  }

  /** The host's boot id; changes on every {@link #reboot()}. */
  public String bootId() {
    return read(() -> bootId);
  }

  /** How many times the host has rebooted since it was created. */
  public int bootCount() {
    return read(() -> bootCount);
  }

  public int gpuCount() {
    return gpus.size();
  }

  public GpuModel model(int gpu) {
    return gpu(gpu, "model").model;
  }

  /** Registers a listener called after every change of GPU state; close the result to remove it. */
  public AutoCloseable onChange(Runnable listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  // ---- GpuBackend ------------------------------------------------------------------------------

  @Override
  public String driverVersion() {
    return read(() -> driverVersion);
  }

  @Override
  public List<Gpu> inventory() {
    return read(() -> gpus.stream().map(SimulatedGpu::toEvent).toList());
  }

  @Override
  public void setMigMode(int index, boolean enabled) {
    String op = "set MIG mode " + (enabled ? "enabled" : "disabled");
    mutateWithDriver(
        index,
        op,
        gpu -> {
          requireMigCapable(gpu, op);
          if (!gpu.instances.isEmpty()) {
            throw refused(
                index, op, gpu.instances.size() + " GPU instances exist; destroy them first");
          }
          Optional<VgpuType> timeSliced =
              enabled ? VgpuPlacement.timeSliced(gpu) : Optional.empty();
          if (timeSliced.isPresent()) {
            throw refused(
                index,
                op,
                "time-sliced vGPU type "
                    + timeSliced.get().name()
                    + " is assigned to a VF; clear it first");
          }
          gpu.migPending = enabled;
          if (!gpu.model.migModeChangeNeedsReset()) {
            // Hopper and later switch at once, but only on an idle GPU.
            Optional<GpuProcess> busy = gpu.processes.values().stream().findFirst();
            if (busy.isPresent() && gpu.migCurrent != enabled) {
              gpu.migPending = gpu.migCurrent;
              String holder = describe(busy.get());
              throw new GpuOperationException(
                  index, op, "GPU is in use by " + holder, holder, null);
            }
            gpu.migCurrent = enabled;
          }
        });
  }

  @Override
  public GpuInstance createGpuInstance(int index, String profileName) {
    String op = "create GPU instance " + profileName;
    return mutateAndGet(
        () -> {
          SimulatedGpu gpu = gpu(index, op);
          MigProfile profile = requireProfileCreatable(gpu, profileName, op);
          for (int start : profile.starts()) {
            if (placementProblem(gpu, profile, start).isEmpty()) {
              return place(gpu, profile, start);
            }
          }
          throw refused(
              index,
              op,
              "no free placement: valid starts "
                  + profile.starts()
                  + " all overlap existing instances "
                  + describeInstances(gpu)
                  + " or exceed the "
                  + gpu.model.mig().computeSlices()
                  + " compute slices");
        });
  }

  @Override
  public GpuInstance createGpuInstance(int index, String profileName, int placementStart) {
    String op = "create GPU instance " + profileName + " at " + placementStart;
    return mutateAndGet(
        () -> {
          SimulatedGpu gpu = gpu(index, op);
          MigProfile profile = requireProfileCreatable(gpu, profileName, op);
          placementProblem(gpu, profile, placementStart)
              .ifPresent(
                  problem -> {
                    throw refused(index, op, problem);
                  });
          return place(gpu, profile, placementStart);
        });
  }

  @Override
  public void destroyGpuInstance(int index, int placementStart) {
    String op = "destroy GPU instance at " + placementStart;
    mutateWithDriver(
        index,
        op,
        gpu -> {
          PlacedInstance instance =
              gpu.instances.stream()
                  .filter(i -> i.start() == placementStart)
                  .findFirst()
                  .orElseThrow(
                      () ->
                          refused(
                              index,
                              op,
                              "no GPU instance starts at memory slice "
                                  + placementStart
                                  + " (instances: "
                                  + describeInstances(gpu)
                                  + ")"));
          if (instance.vgpuVf() >= 0) {
            String holder = "vGPU on VF " + instance.vgpuVf();
            throw new GpuOperationException(
                index, op, "instance is in use by " + holder, holder, null);
          }
          Optional<GpuProcess> busy = gpu.processes.values().stream().findFirst();
          if (busy.isPresent()) {
            String holder = describe(busy.get());
            throw new GpuOperationException(
                index, op, "compute instance is in use by " + holder, holder, null);
          }
          gpu.instances.remove(instance);
        });
  }

  @Override
  public List<GpuProcess> computeProcesses(int index) {
    return read(() -> List.copyOf(gpu(index, "list processes").processes.values()));
  }

  @Override
  public List<String> handleHolders(int index) {
    return read(() -> List.copyOf(gpu(index, "list handle holders").handles));
  }

  @Override
  public void resetGpu(int index) {
    String op = "reset";
    mutateWithDriver(
        index,
        op,
        gpu -> {
          Optional<GpuProcess> process = gpu.processes.values().stream().findFirst();
          if (process.isPresent()) {
            String holder = describe(process.get());
            throw new GpuOperationException(
                index, op, "compute process running: " + holder, holder, null);
          }
          Optional<String> handle = gpu.handles.stream().findFirst();
          if (handle.isPresent()) {
            throw new GpuOperationException(
                index, op, "GPU is held open by " + handle.get(), handle.get(), null);
          }
          if (gpu.vfsEnabled > 0) {
            String holder = gpu.vfsEnabled + " SR-IOV VFs enabled";
            throw new GpuOperationException(
                index, op, holder + "; disable them first", holder, null);
          }
          // The reset commits a pending MIG mode and loses this GPU's instances; nothing else.
          gpu.migCurrent = gpu.migPending;
          gpu.instances.clear();
        });
  }

  @Override
  public void setVfsEnabled(int index, int count) {
    String op = "enable " + count + " SR-IOV VFs";
    mutateWithDriver(
        index,
        op,
        gpu -> {
          if (gpu.vfsTotal == 0) {
            throw refused(
                index,
                op,
                gpu.model.sriovCapable()
                    ? gpu.model.product() + " exposes no VFs without the vGPU (vgpu-kvm) driver"
                    : gpu.model.product() + " is not SR-IOV capable");
          }
          if (count < 0 || count > gpu.vfsTotal) {
            throw refused(index, op, "count must be between 0 and " + gpu.vfsTotal);
          }
          if (count == gpu.vfsEnabled) {
            return;
          }
          if (count > 0 && gpu.vfsEnabled > 0) {
            throw refused(
                index, op, gpu.vfsEnabled + " VFs already enabled; disable them (0) first");
          }
          for (int vf = 0; vf < gpu.vgpuTypes.length; vf++) {
            if (gpu.vgpuTypes[vf] != 0) {
              String holder = "vGPU type " + gpu.vgpuTypes[vf] + " on VF " + vf;
              throw new GpuOperationException(
                  index, op, holder + " exists; remove it first", holder, null);
            }
          }
          // Rule 4 (seed 003): toggling SR-IOV destroys the GPU's instances.
          gpu.instances.clear();
          gpu.enableVfs(count);
        });
  }

  @Override
  public List<VirtualFunction> virtualFunctions(int index) {
    return read(
        () -> {
          SimulatedGpu gpu = gpu(index, "list VFs");
          return IntStream.range(0, gpu.vfsEnabled)
              .mapToObj(
                  vf ->
                      new VirtualFunction(
                          vf,
                          gpu.vfBusId(vf),
                          VgpuPlacement.creatable(gpu, vf).stream().map(VgpuType::id).toList(),
                          gpu.vgpuTypes[vf]))
              .toList();
        });
  }

  @Override
  public void setVgpuType(int index, int vf, int vgpuTypeId) {
    String op = "write vGPU type " + vgpuTypeId + " to VF " + vf;
    mutateWithDriver(
        index,
        op,
        gpu -> {
          if (vf < 0 || vf >= gpu.vfsEnabled) {
            throw refused(
                index, op, "VF " + vf + " does not exist (" + gpu.vfsEnabled + " enabled)");
          }
          if (vgpuTypeId == 0) {
            VgpuPlacement.remove(gpu, vf);
            return;
          }
          if (gpu.vgpuTypes[vf] != 0) {
            throw refused(
                index, op, "VF already has vGPU type " + gpu.vgpuTypes[vf] + "; write 0 first");
          }
          VgpuType type =
              gpu.model.vgpuTypes().stream()
                  .filter(t -> t.id() == vgpuTypeId)
                  .findFirst()
                  .orElseThrow(
                      () ->
                          refused(
                              index,
                              op,
                              "unknown vGPU type for "
                                  + gpu.model.product()
                                  + " (known: "
                                  + gpu.model.vgpuTypes().stream()
                                      .map(t -> t.id() + " " + t.name())
                                      .collect(Collectors.joining(", "))
                                  + ")"));
          if (!VgpuPlacement.creatable(gpu, vf).contains(type)) {
            throw refused(
                index,
                op,
                type.name()
                    + " is not in the VF's creatable types "
                    + VgpuPlacement.creatable(gpu, vf).stream().map(VgpuType::name).toList()
                    + ": "
                    + VgpuPlacement.whyNot(gpu, type));
          }
          VgpuPlacement.place(gpu, vf, type);
        });
  }

  // ---- kernel modules --------------------------------------------------------------------------

  /** Loaded NVIDIA modules, in load order. */
  public List<String> loadedModules() {
    return read(modules::loaded);
  }

  /** The module's reference count (loaded dependents plus device-file holders). */
  public int moduleRefcount(String module) {
    return read(() -> modules.refcount(module, this::deviceHolders));
  }

  /**
   * Unloads one module like rmmod.
   *
   * @throws ModuleBusyException EBUSY naming dependents and holders of /dev/nvidia*
   */
  public void unloadModule(String module) {
    mutate(() -> modules.unload(module, this::deviceHolders));
  }

  /** Loads a module and its dependencies like modprobe. */
  public void loadModule(String module) {
    mutate(() -> modules.load(module));
  }

  private List<String> deviceHolders(String module) {
    List<String> holders = new ArrayList<>();
    boolean holdsAll = module.equals(SimulatedKernelModules.NVIDIA);
    boolean cuda = holdsAll || module.equals(SimulatedKernelModules.UVM);
    for (SimulatedGpu gpu : gpus) {
      if (cuda) {
        gpu.processes.values().forEach(p -> holders.add(describe(p) + " on GPU " + gpu.index));
      }
      if (holdsAll) {
        gpu.handles.forEach(h -> holders.add(h + " on GPU " + gpu.index));
      }
    }
    return holders;
  }

  // ---- disturbances (tests, demo) --------------------------------------------------------------

  /**
   * Reboots the node: VFs, vGPU types, GPU and compute instances are lost, MIG mode too where the
   * model does not keep it (else the pending mode takes effect), processes and handles end, all
   * modules load again and the boot id changes.
   */
  public void reboot() {
    mutate(
        () -> {
          for (SimulatedGpu gpu : gpus) {
            gpu.instances.clear();
            gpu.enableVfs(0);
            gpu.processes.clear();
            gpu.handles.clear();
            if (gpu.model.migCapable()) {
              boolean kept = gpu.model.migModeSurvivesReboot() && gpu.migPending;
              gpu.migCurrent = kept;
              gpu.migPending = kept;
            }
          }
          modules.loadAll();
          bootCount++;
          bootId = bootId(nodeName, bootCount);
        });
  }

  /**
   * Installs another driver version, as a host package, a driver container or an OS image carrying
   * it would: {@link #driverVersion()} reports it from now on. Only the version changes here; the
   * caller reboots (the new modules load with the new boot), as {@link SimulatedNode#installDriver}
   * does.
   */
  public void installDriver(String version) {
    Objects.requireNonNull(version, "version");
    if (version.isBlank()) {
      throw new IllegalArgumentException("driver version must not be blank");
    }
    mutate(() -> driverVersion = version);
  }

  /** Starts a compute process on a GPU and returns its pid. */
  public long startProcess(int index, String name) {
    String op = "start process " + name;
    return mutateWithDriverAndGet(
        index,
        op,
        gpu -> {
          if (!modules.isLoaded(SimulatedKernelModules.UVM)) {
            throw refused(index, op, "module nvidia_uvm is not loaded");
          }
          long pid = nextPid++;
          gpu.processes.put(pid, new GpuProcess(pid, name, 0));
          return pid;
        });
  }

  public void stopProcess(int index, long pid) {
    String op = "stop process " + pid;
    mutate(
        () -> {
          if (gpu(index, op).processes.remove(pid) == null) {
            throw refused(index, op, "no such process on this GPU");
          }
        });
  }

  /** Another client (e.g. nvidia-persistenced, nv-hostengine) opens the GPU. */
  public void holdHandle(int index, String holder) {
    String op = "open by " + holder;
    mutateWithDriver(index, op, gpu -> gpu.handles.add(holder));
  }

  public void releaseHandle(int index, String holder) {
    String op = "close by " + holder;
    mutate(
        () -> {
          if (!gpu(index, op).handles.remove(holder)) {
            throw refused(index, op, holder + " does not hold this GPU");
          }
        });
  }

  public void setHealth(int index, GpuHealth health) {
    mutate(() -> gpu(index, "set health").health = Objects.requireNonNull(health, "health"));
  }

  /**
   * A MIG mode changed the way a person does it with nvidia-smi, behind Fleetwave's back: the GPU's
   * instances destroyed ({@code mig -dci}, {@code -dgi}), the mode set ({@code -mig}), and the GPU
   * reset ({@code -r}) where the model keeps the new mode pending until then.
   *
   * @throws IllegalArgumentException when the node has no GPU {@code index}
   */
  public void setMigModeByHand(int index, boolean enabled) {
    Gpu gpu =
        inventory().stream()
            .filter(g -> g.index() == index)
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no GPU " + index + " on this node"));
    for (GpuInstance instance : gpu.instances()) {
      destroyGpuInstance(index, instance.placementStart());
    }
    setMigMode(index, enabled);
    Gpu after = inventory().stream().filter(g -> g.index() == index).findFirst().orElseThrow();
    if (after.migMode() != after.migModePending()) {
      resetGpu(index);
    }
  }

  // ---- rules -----------------------------------------------------------------------------------

  private MigProfile requireProfileCreatable(SimulatedGpu gpu, String profileName, String op) {
    requireDriver(gpu.index, op);
    requireMigCapable(gpu, op);
    if (!gpu.migCurrent) {
      throw refused(
          gpu.index,
          op,
          "MIG mode is not currently enabled"
              + (gpu.migPending ? " (enabled is pending until a GPU reset)" : ""));
    }
    MigProfile profile =
        gpu.model
            .profile(profileName)
            .orElseThrow(
                () ->
                    refused(
                        gpu.index,
                        op,
                        "unknown profile for "
                            + gpu.model.product()
                            + " (valid: "
                            + gpu.model.mig().profiles().stream()
                                .map(MigProfile::name)
                                .collect(Collectors.joining(", "))
                            + ")"));
    if (gpu.countOf(profile) >= profile.maxCount()) {
      throw refused(
          gpu.index,
          op,
          "at most " + profile.maxCount() + " instances of " + profileName + " fit on one GPU");
    }
    if (profile.mediaExtensions() && gpu.hasMediaExtensions()) {
      throw refused(gpu.index, op, "a GPU holds at most one media-extension (+me) instance");
    }
    return profile;
  }

  private static Optional<String> placementProblem(
      SimulatedGpu gpu, MigProfile profile, int start) {
    if (!profile.starts().contains(start)) {
      return Optional.of(
          "placement "
              + start
              + " is not valid for "
              + profile.name()
              + " (valid starts: "
              + profile.starts()
              + ")");
    }
    for (PlacedInstance existing : gpu.instances) {
      if (existing.overlaps(start, profile.memorySlices())) {
        return Optional.of(
            "memory slices "
                + start
                + ".."
                + (start + profile.memorySlices() - 1)
                + " overlap "
                + existing.profile().name()
                + " at "
                + existing.start());
      }
    }
    int free = gpu.model.mig().computeSlices() - gpu.computeSlicesUsed();
    if (profile.computeSlices() > free) {
      return Optional.of(
          profile.name()
              + " needs "
              + profile.computeSlices()
              + " compute slices, "
              + free
              + " free");
    }
    return Optional.empty();
  }

  private static GpuInstance place(SimulatedGpu gpu, MigProfile profile, int start) {
    PlacedInstance placed = new PlacedInstance(profile, start, -1);
    gpu.instances.add(placed);
    return placed.toEvent();
  }

  private void requireMigCapable(SimulatedGpu gpu, String op) {
    if (!gpu.model.migCapable()) {
      throw refused(gpu.index, op, gpu.model.product() + " is not MIG capable");
    }
  }

  private void requireDriver(int index, String op) {
    if (!modules.isLoaded(SimulatedKernelModules.NVIDIA)) {
      throw refused(index, op, "the nvidia kernel module is not loaded");
    }
  }

  private SimulatedGpu gpu(int index, String op) {
    if (index < 0 || index >= gpus.size()) {
      throw refused(index, op, "no such GPU (node has " + gpus.size() + ")");
    }
    return gpus.get(index);
  }

  private static GpuOperationException refused(int index, String op, String reason) {
    return new GpuOperationException(index, op, reason);
  }

  private static String describe(GpuProcess process) {
    return "process " + process.name() + " (pid " + process.pid() + ")";
  }

  private static String describeInstances(SimulatedGpu gpu) {
    return gpu.instances.stream()
        .map(i -> i.profile().name() + "@" + i.start())
        .collect(Collectors.joining(", ", "[", "]"));
  }

  // ---- locking ---------------------------------------------------------------------------------

  private <T> T read(Supplier<T> query) {
    lock.lock();
    try {
      return query.get();
    } finally {
      lock.unlock();
    }
  }

  /** A change to one GPU that needs its driver: refused, naming the GPU and the call, without. */
  private void mutateWithDriver(int index, String op, Consumer<SimulatedGpu> change) {
    mutateWithDriverAndGet(
        index,
        op,
        gpu -> {
          change.accept(gpu);
          return null;
        });
  }

  /** {@link #mutateWithDriver}, for a change that answers with what it made (a pid). */
  private <T> T mutateWithDriverAndGet(int index, String op, Function<SimulatedGpu, T> change) {
    return mutateAndGet(
        () -> {
          SimulatedGpu gpu = gpu(index, op);
          requireDriver(index, op);
          return change.apply(gpu);
        });
  }

  /** A change under the lock; the listeners hear of it after the lock is released. */
  private void mutate(Runnable change) {
    mutateAndGet(
        () -> {
          change.run();
          return null;
        });
  }

  /** {@link #mutate}, for a change that answers with what it made (a GPU instance). */
  private <T> T mutateAndGet(Supplier<T> change) {
    T result = read(change);
    listeners.forEach(Runnable::run);
    return result;
  }

  /** Test and invariant access: a copy of one GPU's vGPU type per VF. */
  int[] vgpuTypesOf(int index) {
    return read(() -> gpu(index, "read vGPU types").vgpuTypesCopy());
  }
}
