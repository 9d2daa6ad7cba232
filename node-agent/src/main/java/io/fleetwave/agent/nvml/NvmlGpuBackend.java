package io.fleetwave.agent.nvml;

import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.gpu.GpuOperationException;
import io.fleetwave.agent.gpu.GpuProcess;
import io.fleetwave.agent.gpu.VirtualFunction;
import io.fleetwave.agent.host.CommandRunner;
import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.TrustedPaths;
import io.fleetwave.agent.host.UntrustedPathException;
import io.fleetwave.agent.nvml.Nvml.GpuInstanceProfileInfo;
import io.fleetwave.agent.nvml.Nvml.Placement;
import io.fleetwave.agent.reset.GpuReset;
import io.fleetwave.agent.reset.NodeReboot;
import io.fleetwave.agent.reset.NodeRebootingException;
import io.fleetwave.agent.reset.ResetOutcome;
import io.fleetwave.agent.reset.ResetPolicy;
import io.fleetwave.agent.reset.ResetTarget;
import io.fleetwave.agent.sriov.PciSysfs;
import io.fleetwave.agent.sriov.SriovControl;
import io.fleetwave.agent.sriov.SriovException;
import io.fleetwave.agent.sriov.VgpuSysfs;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigProfile;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The real GPU backend: NVML (through {@link Nvml}) for inventory, MIG and processes; sysfs for
 * SR-IOV VFs and vGPU types; {@link GpuReset} for the targeted reset. Profile names come from
 * {@link GpuCatalog} for the device's PCI id and map to NVML GPU-instance profile ids. NVML errors
 * become {@link GpuOperationException}s naming the GPU and the operation.
 */
public final class NvmlGpuBackend implements GpuBackend {
  /** NVML_GPU_INSTANCE_PROFILE_COUNT is below this on every driver so far. */
  private static final int GPU_INSTANCE_PROFILE_INDEXES = 32;

  /** Compute-instance profile index (NVML_COMPUTE_INSTANCE_PROFILE_*) by compute slice count. */
  private static final Map<Integer, Integer> CI_PROFILE_BY_SLICES =
      Map.of(1, 0, 2, 1, 3, 2, 4, 3, 7, 4, 8, 5, 6, 6);

  private final Nvml nvml;
  private final GpuCatalog catalog;
  private final PciSysfs pci;
  private final SriovControl sriov;
  private final VgpuSysfs vgpu;
  private final GpuReset reset;
  private final List<DeviceProfiles> profiles = new ArrayList<>();

  private record DeviceProfiles(Optional<GpuModel> model, List<GpuInstanceProfileInfo> nvml) {}

  NvmlGpuBackend(
      Nvml nvml, HostFacts facts, GpuCatalog catalog, GpuReset reset, SriovControl sriov) {
    this.nvml = nvml;
    this.catalog = catalog;
    this.pci = new PciSysfs(facts.hostRoot());
    this.sriov = sriov;
    this.vgpu = new VgpuSysfs(facts.hostRoot());
    this.reset = reset;
  }

  /**
   * Loads NVML from the probed driver root and initialises it.
   *
   * @throws IllegalStateException naming the driver root when there is no NVML library there
   */
  public static NvmlGpuBackend open(
      HostFacts facts, CommandRunner runner, ResetPolicy policy, NodeReboot reboot) {
    return open(facts, runner, policy, reboot, NvmlCalls.DEFAULT_BOUND);
  }

  /**
   * As {@link #open(HostFacts, CommandRunner, ResetPolicy, NodeReboot)}, with each NVML call
   * bounded by {@code nvmlCallBound} (see {@link NvmlCalls}).
   */
  public static NvmlGpuBackend open(
      HostFacts facts,
      CommandRunner runner,
      ResetPolicy policy,
      NodeReboot reboot,
      Duration nvmlCallBound) {
    return open(facts, runner, policy, reboot, nvmlCallBound, TrustedPaths.rootOrSelf());
  }

  /**
   * As above, loading NVML only if {@code trust} accepts the library and every directory on its
   * real path (a root agent must not load a library someone else could have replaced).
   *
   * @throws UntrustedPathException naming the path, its owner and mode
   */
  public static NvmlGpuBackend open(
      HostFacts facts,
      CommandRunner runner,
      ResetPolicy policy,
      NodeReboot reboot,
      Duration nvmlCallBound,
      TrustedPaths trust) {
    java.nio.file.Path library =
        facts
            .nvmlLibrary()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no libnvidia-ml.so.1 under driver root "
                            + facts.os().driverRoot()
                            + " ("
                            + facts.reasons().get("driverRoot")
                            + ")"));
    Nvml nvml = Nvml.load(trust.check(library, "NVML library"), nvmlCallBound);
    try {
      nvml.init();
    } catch (NvmlException | NvmlHungException e) {
      nvml.close();
      throw new IllegalStateException(
          "NVML at " + library + " did not initialise: " + e.getMessage(), e);
    }
    GpuReset reset = new GpuReset(facts.hostRoot(), facts.nvidiaSmi(), runner, policy, reboot);
    SriovControl sriov = new SriovControl(facts.hostRoot(), runner, Duration.ofSeconds(60));
    NvmlGpuBackend backend = new NvmlGpuBackend(nvml, facts, GpuCatalog.bundled(), reset, sriov);
    try {
      backend.readProfiles();
    } catch (RuntimeException e) {
      backend.close();
      throw new IllegalStateException(
          "NVML at " + library + " could not list the GPUs: " + e.getMessage(), e);
    }
    return backend;
  }

  private void readProfiles() {
    int count = nvml.deviceCount();
    for (int i = 0; i < count; i++) {
      MemorySegment device = nvml.device(i);
      Optional<GpuModel> model = catalog.find(pciDeviceId(device));
      List<GpuInstanceProfileInfo> infos = new ArrayList<>();
      if (nvml.migMode(device).isPresent()) {
        for (int index = 0; index < GPU_INSTANCE_PROFILE_INDEXES; index++) {
          nvml.gpuInstanceProfileInfo(device, index).ifPresent(infos::add);
        }
      }
      profiles.add(new DeviceProfiles(model, List.copyOf(infos)));
    }
  }

  @Override
  public String driverVersion() {
    return nvml.driverVersion();
  }

  @Override
  public synchronized List<Gpu> inventory() {
    List<Gpu> gpus = new ArrayList<>();
    for (int i = 0; i < profiles.size(); i++) {
      int index = i;
      gpus.add(op(index, "inventory", () -> gpu(index)));
    }
    return gpus;
  }

  private Gpu gpu(int index) {
    MemorySegment device = nvml.device(index);
    String bdf = busId(device);
    Optional<Nvml.MigModes> mig = nvml.migMode(device);
    MigMode current =
        mig.map(m -> m.current() == 1 ? MigMode.ENABLED : MigMode.DISABLED)
            .orElse(MigMode.UNSUPPORTED);
    MigMode pending =
        mig.map(m -> m.pending() == 1 ? MigMode.ENABLED : MigMode.DISABLED)
            .orElse(MigMode.UNSUPPORTED);
    return new Gpu(
        index,
        nvml.uuid(device),
        bdf,
        pciDeviceId(device),
        nvml.name(device),
        nvml.memoryTotalBytes(device) / (1024 * 1024),
        mig.isPresent(),
        current,
        pending,
        current == MigMode.ENABLED ? instances(index, device) : List.of(),
        pci.totalVfs(bdf),
        pci.enabledVfs(bdf),
        GpuHealth.HEALTHY);
  }

  private List<GpuInstance> instances(int index, MemorySegment device) {
    List<GpuInstance> result = new ArrayList<>();
    for (GpuInstanceProfileInfo info : profiles.get(index).nvml()) {
      for (MemorySegment gi : nvml.gpuInstances(device, info.id())) {
        Placement placement = nvml.gpuInstanceInfo(gi).placement();
        result.add(new GpuInstance(profileName(index, info), placement.start(), placement.size()));
      }
    }
    result.sort(java.util.Comparator.comparingInt(GpuInstance::placementStart));
    return result;
  }

  @Override
  public synchronized void setMigMode(int gpu, boolean enabled) {
    String op = "setMigMode(" + (enabled ? "enabled" : "disabled") + ")";
    op(
        gpu,
        op,
        () -> {
          MemorySegment device = nvml.device(gpu);
          if (nvml.migMode(device).isEmpty()) {
            // NVML answers NOT_SUPPORTED; say why, as createGpuInstance does.
            String name =
                profiles.get(gpu).model().map(GpuModel::shortName).orElse(nvml.name(device));
            throw new GpuOperationException(gpu, op, name + " is not MIG capable");
          }
          nvml.setMigMode(device, enabled);
          return null;
        });
  }

  @Override
  public GpuInstance createGpuInstance(int gpu, String profile) {
    return create(gpu, profile, Optional.empty());
  }

  @Override
  public GpuInstance createGpuInstance(int gpu, String profile, int placementStart) {
    return create(gpu, profile, Optional.of(placementStart));
  }

  private synchronized GpuInstance create(int gpu, String profileName, Optional<Integer> start) {
    String op = "createGpuInstance(" + profileName + start.map(s -> "@" + s).orElse("") + ")";
    return op(
        gpu,
        op,
        () -> {
          MemorySegment device = nvml.device(gpu);
          GpuInstanceProfileInfo info = nvmlProfile(gpu, op, profileName);
          MemorySegment gi;
          if (start.isPresent()) {
            List<Placement> valid = nvml.possiblePlacements(device, info.id());
            Placement at =
                orRefuse(
                    valid.stream().filter(p -> p.start() == start.get()).findFirst(),
                    gpu,
                    op,
                    () ->
                        "memory slice "
                            + start.get()
                            + " is not a valid placement; valid starts: "
                            + valid.stream()
                                .map(p -> Integer.toString(p.start()))
                                .collect(Collectors.joining(", ")));
            gi = nvml.createGpuInstance(device, info.id(), at);
          } else {
            gi = nvml.createGpuInstance(device, info.id());
          }
          createDefaultComputeInstance(gpu, op, gi, info);
          Placement placement = nvml.gpuInstanceInfo(gi).placement();
          return new GpuInstance(profileName, placement.start(), placement.size());
        });
  }

  private void createDefaultComputeInstance(
      int gpu, String op, MemorySegment gi, GpuInstanceProfileInfo info) {
    try {
      Integer ciIndex = CI_PROFILE_BY_SLICES.get(info.sliceCount());
      Nvml.ComputeInstanceProfileInfo ci =
          orRefuse(
              Optional.ofNullable(ciIndex).flatMap(idx -> nvml.computeInstanceProfileInfo(gi, idx)),
              gpu,
              op,
              () -> "no compute-instance profile spans " + info.sliceCount() + " slices");
      nvml.createComputeInstance(gi, ci.id());
    } catch (RuntimeException e) {
      // Rule 3: never leave a half-created instance behind.
      nvml.destroyGpuInstance(gi);
      throw e instanceof NvmlException n
          ? new GpuOperationException(
              gpu, op, n.reason() + "; the new GPU instance was destroyed again", null, n)
          : e;
    }
  }

  @Override
  public synchronized void destroyGpuInstance(int gpu, int placementStart) {
    String op = "destroyGpuInstance(@" + placementStart + ")";
    op(
        gpu,
        op,
        () -> {
          MemorySegment device = nvml.device(gpu);
          for (GpuInstanceProfileInfo info : profiles.get(gpu).nvml()) {
            for (MemorySegment gi : nvml.gpuInstances(device, info.id())) {
              if (nvml.gpuInstanceInfo(gi).placement().start() == placementStart) {
                for (int idx = 0; idx < 8; idx++) {
                  Optional<Nvml.ComputeInstanceProfileInfo> ci =
                      nvml.computeInstanceProfileInfo(gi, idx);
                  if (ci.isPresent()) {
                    nvml.computeInstances(gi, ci.get().id()).forEach(nvml::destroyComputeInstance);
                  }
                }
                nvml.destroyGpuInstance(gi);
                return null;
              }
            }
          }
          throw new GpuOperationException(
              gpu, op, "no GPU instance starts at memory slice " + placementStart);
        });
  }

  @Override
  public synchronized List<GpuProcess> computeProcesses(int gpu) {
    return op(
        gpu,
        "computeProcesses",
        () ->
            nvml.computeProcesses(nvml.device(gpu)).stream()
                .map(
                    p ->
                        new GpuProcess(
                            p.pid(),
                            reset.holders().processName(p.pid()),
                            p.usedGpuMemoryBytes() / (1024 * 1024)))
                .toList());
  }

  @Override
  public synchronized List<String> handleHolders(int gpu) {
    return op(
        gpu, "handleHolders", () -> reset.holders().holdersOf(nvml.minorNumber(nvml.device(gpu))));
  }

  @Override
  public synchronized void resetGpu(int gpu) {
    ResetTarget target =
        op(
            gpu,
            "resetGpu",
            () -> {
              MemorySegment device = nvml.device(gpu);
              return new ResetTarget(gpu, busId(device), nvml.minorNumber(device));
            });
    List<GpuProcess> processes = computeProcesses(gpu);
    int vfs = pci.enabledVfs(target.pciBusId());
    Optional<ResetOutcome.Refused> refused = reset.refusal(target, processes, vfs);
    if (refused.isPresent()) {
      throw new GpuOperationException(
          gpu, "resetGpu", refused.get().reason(), refused.get().holder(), null);
    }
    // The agent's own NVML session holds the GPU open: release it for the reset.
    nvml.shutdown();
    ResetOutcome outcome;
    try {
      outcome = reset.perform(target);
    } finally {
      nvml.init();
    }
    switch (outcome) {
      case ResetOutcome.Reset r -> {}
      case ResetOutcome.Refused r ->
          throw new GpuOperationException(gpu, "resetGpu", r.reason(), r.holder(), null);
      case ResetOutcome.Rebooting r -> throw new NodeRebootingException(gpu, r.reason());
    }
  }

  @Override
  public synchronized void setVfsEnabled(int gpu, int count) {
    String bdf = op(gpu, "setVfsEnabled(" + count + ")", () -> busId(nvml.device(gpu)));
    sriovOp(
        gpu,
        "setVfsEnabled(" + count + ")",
        () -> {
          sriov.setVfs(bdf, count);
          return null;
        });
  }

  @Override
  public synchronized List<VirtualFunction> virtualFunctions(int gpu) {
    String bdf = op(gpu, "virtualFunctions", () -> busId(nvml.device(gpu)));
    return sriovOp(
        gpu,
        "virtualFunctions",
        () -> {
          List<String> vfs = pci.virtualFunctions(bdf);
          List<VirtualFunction> result = new ArrayList<>();
          for (int i = 0; i < vfs.size(); i++) {
            String vf = vfs.get(i);
            result.add(
                new VirtualFunction(
                    i,
                    vf,
                    vgpu.creatableTypes(vf).stream().map(VgpuSysfs.VgpuTypeEntry::id).toList(),
                    vgpu.currentType(vf)));
          }
          return result;
        });
  }

  @Override
  public synchronized void setVgpuType(int gpu, int vf, int vgpuTypeId) {
    String op = "setVgpuType(vf " + vf + ", " + vgpuTypeId + ")";
    String bdf = op(gpu, op, () -> busId(nvml.device(gpu)));
    sriovOp(
        gpu,
        op,
        () -> {
          List<String> vfs = pci.virtualFunctions(bdf);
          if (vf < 0 || vf >= vfs.size()) {
            throw new SriovException("no VF " + vf + " (" + vfs.size() + " VFs enabled)");
          }
          vgpu.setType(vfs.get(vf), vgpuTypeId);
          return null;
        });
  }

  @Override
  public synchronized void close() {
    try {
      nvml.shutdown();
    } catch (NvmlException | NvmlHungException ignored) {
      // Shutting down an NVML that is already down (or stuck) changes nothing.
    } finally {
      nvml.close();
    }
  }

  // ---- helpers ----

  private GpuInstanceProfileInfo nvmlProfile(int gpu, String op, String profileName) {
    DeviceProfiles device = profiles.get(gpu);
    GpuModel model =
        orRefuse(
            device.model(),
            gpu,
            op,
            () -> "GPU model " + pciDeviceId(nvml.device(gpu)) + " is not in the catalogue");
    MigProfile profile =
        orRefuse(
            model.profile(profileName),
            gpu,
            op,
            () ->
                model.migCapable()
                    ? "no MIG profile "
                        + profileName
                        + " on "
                        + model.shortName()
                        + "; profiles: "
                        + model.mig().profiles().stream()
                            .map(MigProfile::name)
                            .collect(Collectors.joining(", "))
                    : model.shortName() + " is not MIG capable");
    return orRefuse(
        device.nvml().stream().filter(i -> i.id() == profile.profileId()).findFirst(),
        gpu,
        op,
        () ->
            "NVML offers no GPU-instance profile id "
                + profile.profileId()
                + " ("
                + profileName
                + ")");
  }

  /** The value, or {@code op} on {@code gpu} refused for the reason (worked out only then). */
  private static <T> T orRefuse(Optional<T> value, int gpu, String op, Supplier<String> reason) {
    return value.orElseThrow(() -> new GpuOperationException(gpu, op, reason.get()));
  }

  private String profileName(int gpu, GpuInstanceProfileInfo info) {
    return profiles
        .get(gpu)
        .model()
        .flatMap(
            m ->
                m.mig() == null
                    ? Optional.empty()
                    : m.mig().profiles().stream()
                        .filter(p -> p.profileId() == info.id())
                        .findFirst())
        .map(MigProfile::name)
        .orElse(info.sliceCount() + "g." + Math.round(info.memorySizeMB() / 1024.0) + "gb");
  }

  private String busId(MemorySegment device) {
    return PciSysfs.normalize(nvml.pciInfo(device).busId());
  }

  private String pciDeviceId(MemorySegment device) {
    return String.format(Locale.ROOT, "0x%08X", nvml.pciInfo(device).pciDeviceId());
  }

  private <T> T op(int gpu, String op, Supplier<T> body) {
    if (gpu < 0 || gpu >= profiles.size()) {
      throw new GpuOperationException(
          gpu, op, "no such GPU (this node has " + profiles.size() + ")");
    }
    try {
      return body.get();
    } catch (NvmlException e) {
      throw new GpuOperationException(gpu, op, e.reason(), null, e);
    }
  }

  private <T> T sriovOp(int gpu, String op, Supplier<T> body) {
    try {
      return body.get();
    } catch (SriovException e) {
      throw new GpuOperationException(gpu, op, e.getMessage(), null, e);
    }
  }
}
