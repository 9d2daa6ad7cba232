package io.fleetwave.agent.nvml;

import static io.fleetwave.agent.nvml.NvmlLayouts.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The NVML C API through java.lang.foreign, loaded from one libnvidia-ml.so.1 (the one the host
 * probe found under the driver root; never a hard-coded system path). Functions are bound on first
 * use, so a driver that lacks one fails that call with NVML_ERROR_FUNCTION_NOT_FOUND, not the whole
 * agent. Handles (nvmlDevice_t, nvmlGpuInstance_t, nvmlComputeInstance_t) are opaque pointers.
 * Every non-success return becomes an {@link NvmlException} with NVML's own text.
 *
 * <p>Each public method runs on NVML's own thread ({@link NvmlCalls}), one at a time, and its
 * caller waits for it at most the call bound: a call that hangs in the driver fails with {@link
 * NvmlHungException} naming the function and the bound, and later calls fail fast until it returns.
 * Scratch memory is allocated on that thread, so a hung call's buffers stay valid while it runs.
 */
public final class Nvml implements AutoCloseable {
  private static final int STRING_BUFFER = 96; // NVML_DEVICE_NAME_V2_BUFFER_SIZE, UUID_V2 size
  private static final FunctionDescriptor INT_VOID = FunctionDescriptor.of(JAVA_INT);

  private final Path library;
  private final Arena arena;
  private final SymbolLookup symbols;
  private final Linker linker = Linker.nativeLinker();
  private final Map<String, MethodHandle> bound = new ConcurrentHashMap<>();
  private final NvmlCalls calls;

  private Nvml(Path library, Arena arena, SymbolLookup symbols, NvmlCalls calls) {
    this.library = library;
    this.arena = arena;
    this.symbols = symbols;
    this.calls = calls;
  }

  /** dlopen()s the library at this path; the caller then calls {@link #init()}. */
  // Restricted: binding NVML through java.lang.foreign is the design; the agent's launcher
  // grants native access. The arena lives as long as the library: close() closes it.
  @SuppressWarnings({"restricted", "MustBeClosedChecker"})
  public static Nvml load(Path library) {
    return load(library, NvmlCalls.DEFAULT_BOUND);
  }

  /**
   * dlopen()s the library at this path; every call into it then runs on one dedicated thread and is
   * bounded by {@code callBound} (see {@link NvmlCalls}).
   */
  @SuppressWarnings({"restricted", "MustBeClosedChecker"})
  public static Nvml load(Path library, java.time.Duration callBound) {
    if (!Files.exists(library)) {
      throw new IllegalStateException("NVML library " + library + " does not exist");
    }
    Arena arena = Arena.ofShared();
    try {
      return new Nvml(
          library, arena, SymbolLookup.libraryLookup(library, arena), new NvmlCalls(callBound));
    } catch (IllegalArgumentException e) {
      arena.close();
      throw new IllegalStateException(
          "cannot load NVML library " + library + ": " + e.getMessage(), e);
    }
  }

  public Path library() {
    return library;
  }

  // ---- records of what NVML returns ----

  public record PciInfo(String busId, int domain, int bus, int device, int pciDeviceId) {}

  public record MigModes(int current, int pending) {}

  public record GpuInstanceProfileInfo(
      int id, int sliceCount, int instanceCount, long memorySizeMB) {}

  public record Placement(int start, int size) {}

  public record GpuInstanceInfo(int id, int profileId, Placement placement) {}

  public record ComputeInstanceProfileInfo(int id, int sliceCount) {}

  public record ProcessInfo(long pid, long usedGpuMemoryBytes) {}

  // ---- system ----

  /** Bounded by {@link NvmlCalls#INIT_BOUND}: initialising every GPU takes seconds per GPU. */
  public void init() {
    calls.run(
        NvmlCalls.INIT_BOUND,
        () -> {
          check("nvmlInit_v2", call("nvmlInit_v2", INT_VOID));
          return null;
        });
  }

  public void shutdown() {
    calls.run(
        NvmlCalls.INIT_BOUND,
        () -> {
          check("nvmlShutdown", call("nvmlShutdown", INT_VOID));
          return null;
        });
  }

  public String driverVersion() {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment buf = local.allocate(80);
            check(
                "nvmlSystemGetDriverVersion",
                call("nvmlSystemGetDriverVersion", desc(ADDRESS, JAVA_INT), buf, 80));
            return buf.getString(0);
          }
        });
  }

  public int deviceCount() {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment count = local.allocate(JAVA_INT);
            check("nvmlDeviceGetCount_v2", call("nvmlDeviceGetCount_v2", desc(ADDRESS), count));
            return count.get(JAVA_INT, 0);
          }
        });
  }

  public MemorySegment device(int index) {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment handle = local.allocate(ADDRESS);
            check(
                "nvmlDeviceGetHandleByIndex_v2",
                call("nvmlDeviceGetHandleByIndex_v2", desc(JAVA_INT, ADDRESS), index, handle));
            return handle.get(ADDRESS, 0);
          }
        });
  }

  // ---- device facts ----

  public String uuid(MemorySegment device) {
    return calls.run(
        () -> {
          return deviceString("nvmlDeviceGetUUID", device);
        });
  }

  public String name(MemorySegment device) {
    return calls.run(
        () -> {
          return deviceString("nvmlDeviceGetName", device);
        });
  }

  public int minorNumber(MemorySegment device) {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment minor = local.allocate(JAVA_INT);
            check(
                "nvmlDeviceGetMinorNumber",
                call("nvmlDeviceGetMinorNumber", desc(ADDRESS, ADDRESS), device, minor));
            return minor.get(JAVA_INT, 0);
          }
        });
  }

  public PciInfo pciInfo(MemorySegment device) {
    return calls.run(
        () -> {
          var l = NvmlLayouts.PCI_INFO;
          try (Arena local = Arena.ofConfined()) {
            MemorySegment info = local.allocate(l);
            check(
                "nvmlDeviceGetPciInfo_v3",
                call("nvmlDeviceGetPciInfo_v3", desc(ADDRESS, ADDRESS), device, info));
            return new PciInfo(
                info.getString(offset(l, "busId")),
                info.get(JAVA_INT, offset(l, "domain")),
                info.get(JAVA_INT, offset(l, "bus")),
                info.get(JAVA_INT, offset(l, "device")),
                info.get(JAVA_INT, offset(l, "pciDeviceId")));
          }
        });
  }

  /** Total framebuffer memory in bytes. */
  public long memoryTotalBytes(MemorySegment device) {
    return calls.run(
        () -> {
          var l = NvmlLayouts.MEMORY;
          try (Arena local = Arena.ofConfined()) {
            MemorySegment info = local.allocate(l);
            check(
                "nvmlDeviceGetMemoryInfo",
                call("nvmlDeviceGetMemoryInfo", desc(ADDRESS, ADDRESS), device, info));
            return info.get(JAVA_LONG, offset(l, "total"));
          }
        });
  }

  /** Current and pending MIG mode (1 = enabled); empty where the GPU is not MIG capable. */
  public Optional<MigModes> migMode(MemorySegment device) {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment current = local.allocate(JAVA_INT);
            MemorySegment pending = local.allocate(JAVA_INT);
            int rc =
                call(
                    "nvmlDeviceGetMigMode",
                    desc(ADDRESS, ADDRESS, ADDRESS),
                    device,
                    current,
                    pending);
            if (rc == NvmlReturn.ERROR_NOT_SUPPORTED) {
              return Optional.empty();
            }
            check("nvmlDeviceGetMigMode", rc);
            return Optional.of(new MigModes(current.get(JAVA_INT, 0), pending.get(JAVA_INT, 0)));
          }
        });
  }

  /** Sets MIG mode; returns the activation status (non-success: pending until a GPU reset). */
  public int setMigMode(MemorySegment device, boolean enabled) {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment activation = local.allocate(JAVA_INT);
            check(
                "nvmlDeviceSetMigMode",
                call(
                    "nvmlDeviceSetMigMode",
                    desc(ADDRESS, JAVA_INT, ADDRESS),
                    device,
                    enabled ? 1 : 0,
                    activation));
            return activation.get(JAVA_INT, 0);
          }
        });
  }

  // ---- GPU instances ----

  /** Info of GPU-instance profile index {@code profile}; empty where the GPU does not offer it. */
  public Optional<GpuInstanceProfileInfo> gpuInstanceProfileInfo(
      MemorySegment device, int profile) {
    return calls.run(
        () -> {
          var l = NvmlLayouts.GPU_INSTANCE_PROFILE_INFO;
          try (Arena local = Arena.ofConfined()) {
            MemorySegment info = local.allocate(l);
            int rc =
                call(
                    "nvmlDeviceGetGpuInstanceProfileInfo",
                    desc(ADDRESS, JAVA_INT, ADDRESS),
                    device,
                    profile,
                    info);
            if (rc == NvmlReturn.ERROR_INVALID_ARGUMENT || rc == NvmlReturn.ERROR_NOT_SUPPORTED) {
              return Optional.empty();
            }
            check("nvmlDeviceGetGpuInstanceProfileInfo", rc);
            return Optional.of(
                new GpuInstanceProfileInfo(
                    info.get(JAVA_INT, offset(l, "id")),
                    info.get(JAVA_INT, offset(l, "sliceCount")),
                    info.get(JAVA_INT, offset(l, "instanceCount")),
                    info.get(JAVA_LONG, offset(l, "memorySizeMB"))));
          }
        });
  }

  public List<Placement> possiblePlacements(MemorySegment device, int profileId) {
    return calls.run(
        () -> {
          var l = NvmlLayouts.PLACEMENT;
          try (Arena local = Arena.ofConfined()) {
            MemorySegment count = local.allocate(JAVA_INT);
            String fn = "nvmlDeviceGetGpuInstancePossiblePlacements_v2";
            FunctionDescriptor d = desc(ADDRESS, JAVA_INT, ADDRESS, ADDRESS);
            check(fn, call(fn, d, device, profileId, MemorySegment.NULL, count));
            int n = count.get(JAVA_INT, 0);
            MemorySegment placements = local.allocate(l, Math.max(n, 1));
            check(fn, call(fn, d, device, profileId, placements, count));
            List<Placement> result = new ArrayList<>();
            for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
              MemorySegment p = placements.asSlice(i * l.byteSize(), l);
              result.add(new Placement(p.get(JAVA_INT, 0), p.get(JAVA_INT, 4)));
            }
            return result;
          }
        });
  }

  public MemorySegment createGpuInstance(MemorySegment device, int profileId) {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment gi = local.allocate(ADDRESS);
            check(
                "nvmlDeviceCreateGpuInstance",
                call(
                    "nvmlDeviceCreateGpuInstance",
                    desc(ADDRESS, JAVA_INT, ADDRESS),
                    device,
                    profileId,
                    gi));
            return gi.get(ADDRESS, 0);
          }
        });
  }

  public MemorySegment createGpuInstance(MemorySegment device, int profileId, Placement at) {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment placement = local.allocate(NvmlLayouts.PLACEMENT);
            placement.set(JAVA_INT, 0, at.start());
            placement.set(JAVA_INT, 4, at.size());
            MemorySegment gi = local.allocate(ADDRESS);
            String fn = "nvmlDeviceCreateGpuInstanceWithPlacement";
            check(
                fn,
                call(
                    fn,
                    desc(ADDRESS, JAVA_INT, ADDRESS, ADDRESS),
                    device,
                    profileId,
                    placement,
                    gi));
            return gi.get(ADDRESS, 0);
          }
        });
  }

  public List<MemorySegment> gpuInstances(MemorySegment device, int profileId) {
    return calls.run(
        () -> {
          return handles("nvmlDeviceGetGpuInstances", device, profileId, 8);
        });
  }

  public GpuInstanceInfo gpuInstanceInfo(MemorySegment gpuInstance) {
    return calls.run(
        () -> {
          var l = NvmlLayouts.GPU_INSTANCE_INFO;
          try (Arena local = Arena.ofConfined()) {
            MemorySegment info = local.allocate(l);
            check(
                "nvmlGpuInstanceGetInfo",
                call("nvmlGpuInstanceGetInfo", desc(ADDRESS, ADDRESS), gpuInstance, info));
            long placement = offset(l, "placement");
            return new GpuInstanceInfo(
                info.get(JAVA_INT, offset(l, "id")),
                info.get(JAVA_INT, offset(l, "profileId")),
                new Placement(info.get(JAVA_INT, placement), info.get(JAVA_INT, placement + 4)));
          }
        });
  }

  public void destroyGpuInstance(MemorySegment gpuInstance) {
    calls.run(
        () -> {
          check(
              "nvmlGpuInstanceDestroy", call("nvmlGpuInstanceDestroy", desc(ADDRESS), gpuInstance));
          return null;
        });
  }

  // ---- compute instances ----

  /**
   * Info of compute-instance profile index {@code profile} (shared engines); empty if not offered.
   */
  public Optional<ComputeInstanceProfileInfo> computeInstanceProfileInfo(
      MemorySegment gpuInstance, int profile) {
    return calls.run(
        () -> {
          var l = NvmlLayouts.COMPUTE_INSTANCE_PROFILE_INFO;
          try (Arena local = Arena.ofConfined()) {
            MemorySegment info = local.allocate(l);
            String fn = "nvmlGpuInstanceGetComputeInstanceProfileInfo";
            int rc =
                call(fn, desc(ADDRESS, JAVA_INT, JAVA_INT, ADDRESS), gpuInstance, profile, 0, info);
            if (rc == NvmlReturn.ERROR_INVALID_ARGUMENT || rc == NvmlReturn.ERROR_NOT_SUPPORTED) {
              return Optional.empty();
            }
            check(fn, rc);
            return Optional.of(
                new ComputeInstanceProfileInfo(
                    info.get(JAVA_INT, offset(l, "id")),
                    info.get(JAVA_INT, offset(l, "sliceCount"))));
          }
        });
  }

  public MemorySegment createComputeInstance(MemorySegment gpuInstance, int profileId) {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment ci = local.allocate(ADDRESS);
            String fn = "nvmlGpuInstanceCreateComputeInstance";
            check(fn, call(fn, desc(ADDRESS, JAVA_INT, ADDRESS), gpuInstance, profileId, ci));
            return ci.get(ADDRESS, 0);
          }
        });
  }

  public List<MemorySegment> computeInstances(MemorySegment gpuInstance, int profileId) {
    return calls.run(
        () -> {
          return handles("nvmlGpuInstanceGetComputeInstances", gpuInstance, profileId, 8);
        });
  }

  public void destroyComputeInstance(MemorySegment computeInstance) {
    calls.run(
        () -> {
          check(
              "nvmlComputeInstanceDestroy",
              call("nvmlComputeInstanceDestroy", desc(ADDRESS), computeInstance));
          return null;
        });
  }

  // ---- processes ----

  public List<ProcessInfo> computeProcesses(MemorySegment device) {
    return calls.run(
        () -> {
          var l = NvmlLayouts.PROCESS_INFO;
          String fn = "nvmlDeviceGetComputeRunningProcesses_v3";
          FunctionDescriptor d = desc(ADDRESS, ADDRESS, ADDRESS);
          int capacity = 32;
          while (true) {
            try (Arena local = Arena.ofConfined()) {
              MemorySegment count = local.allocate(JAVA_INT);
              count.set(JAVA_INT, 0, capacity);
              MemorySegment infos = local.allocate(l, capacity);
              int rc = call(fn, d, device, count, infos);
              if (rc == NvmlReturn.ERROR_INSUFFICIENT_SIZE) {
                capacity = Math.max(capacity * 2, count.get(JAVA_INT, 0));
                continue;
              }
              check(fn, rc);
              List<ProcessInfo> result = new ArrayList<>();
              for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
                MemorySegment p = infos.asSlice(i * l.byteSize(), l);
                result.add(
                    new ProcessInfo(
                        Integer.toUnsignedLong(p.get(JAVA_INT, offset(l, "pid"))),
                        p.get(JAVA_LONG, offset(l, "usedGpuMemory"))));
              }
              return result;
            }
          }
        });
  }

  /** NVML's own text for a return code (nvmlErrorString). */
  @SuppressWarnings("restricted") // reinterpret: NVML returns a C string of unknown length
  public synchronized String errorString(int code) {
    try {
      MethodHandle handle = bind("nvmlErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
      MemorySegment text = (MemorySegment) handle.invokeWithArguments(code);
      return text.equals(MemorySegment.NULL)
          ? "no description"
          : text.reinterpret(1024).getString(0);
    } catch (NvmlException e) {
      return "no description (nvmlErrorString missing)";
    } catch (Throwable t) {
      return "no description (" + t + ")";
    }
  }

  /**
   * Unloads the library, unless a call is still stuck in it: unmapping code a thread is executing
   * would crash the JVM, so the library then stays loaded (the process is usually exiting anyway).
   */
  @Override
  public void close() {
    if (calls.close()) {
      arena.close();
    }
  }

  // ---- plumbing ----

  private String deviceString(String fn, MemorySegment device) {
    try (Arena local = Arena.ofConfined()) {
      MemorySegment buf = local.allocate(STRING_BUFFER);
      check(fn, call(fn, desc(ADDRESS, ADDRESS, JAVA_INT), device, buf, STRING_BUFFER));
      return buf.getString(0);
    }
  }

  private List<MemorySegment> handles(String fn, MemorySegment owner, int profileId, int capacity) {
    try (Arena local = Arena.ofConfined()) {
      MemorySegment count = local.allocate(JAVA_INT);
      while (true) {
        MemorySegment array = local.allocate(ADDRESS, capacity);
        count.set(JAVA_INT, 0, capacity);
        int rc =
            call(fn, desc(ADDRESS, JAVA_INT, ADDRESS, ADDRESS), owner, profileId, array, count);
        if (rc == NvmlReturn.ERROR_INSUFFICIENT_SIZE) {
          capacity *= 2;
          continue;
        }
        check(fn, rc);
        List<MemorySegment> result = new ArrayList<>();
        for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
          result.add(array.getAtIndex(ADDRESS, i));
        }
        return result;
      }
    }
  }

  private static FunctionDescriptor desc(java.lang.foreign.MemoryLayout... args) {
    return FunctionDescriptor.of(JAVA_INT, args);
  }

  private int call(String fn, FunctionDescriptor descriptor, Object... args) {
    MethodHandle handle;
    try {
      handle = bind(fn, descriptor);
    } catch (NvmlException e) {
      return NvmlReturn.ERROR_FUNCTION_NOT_FOUND;
    }
    calls.entering(fn);
    try {
      return (int) handle.invokeWithArguments(args);
    } catch (Throwable t) {
      throw new IllegalStateException("calling " + fn + " in " + library + " failed", t);
    }
  }

  @SuppressWarnings("restricted") // a downcall into NVML: the design (see load)
  private MethodHandle bind(String fn, FunctionDescriptor descriptor) {
    MethodHandle handle = bound.get(fn);
    if (handle == null) {
      MemorySegment symbol =
          symbols
              .find(fn)
              .orElseThrow(
                  () ->
                      new NvmlException(
                          fn, NvmlReturn.ERROR_FUNCTION_NOT_FOUND, library + " has no " + fn));
      handle = linker.downcallHandle(symbol, descriptor);
      bound.put(fn, handle);
    }
    return handle;
  }

  private void check(String fn, int rc) {
    if (rc != NvmlReturn.SUCCESS) {
      String text =
          rc == NvmlReturn.ERROR_FUNCTION_NOT_FOUND && symbols.find(fn).isEmpty()
              ? library.getFileName() + " has no " + fn
              : errorString(rc);
      throw new NvmlException(fn, rc, text);
    }
  }
}
