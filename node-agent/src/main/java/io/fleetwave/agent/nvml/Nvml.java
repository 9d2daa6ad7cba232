package io.fleetwave.agent.nvml;

import static io.fleetwave.agent.nvml.NvmlLayouts.COMPUTE_INSTANCE_PROFILE_INFO;
import static io.fleetwave.agent.nvml.NvmlLayouts.GPU_INSTANCE_INFO;
import static io.fleetwave.agent.nvml.NvmlLayouts.GPU_INSTANCE_PROFILE_INFO;
import static io.fleetwave.agent.nvml.NvmlLayouts.MEMORY;
import static io.fleetwave.agent.nvml.NvmlLayouts.PCI_INFO;
import static io.fleetwave.agent.nvml.NvmlLayouts.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

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

  public record PciInfo(String busId, int domain, int bus, int device, int pciDeviceId) {
    static PciInfo of(MemorySegment info) {
      var l = NvmlLayouts.PCI_INFO;
      return new PciInfo(
          info.getString(offset(l, "busId")),
          info.get(JAVA_INT, offset(l, "domain")),
          info.get(JAVA_INT, offset(l, "bus")),
          info.get(JAVA_INT, offset(l, "device")),
          info.get(JAVA_INT, offset(l, "pciDeviceId")));
    }
  }

  public record MigModes(int current, int pending) {}

  public record GpuInstanceProfileInfo(
      int id, int sliceCount, int instanceCount, long memorySizeMB) {
    static GpuInstanceProfileInfo of(MemorySegment info) {
      var l = NvmlLayouts.GPU_INSTANCE_PROFILE_INFO;
      return new GpuInstanceProfileInfo(
          info.get(JAVA_INT, offset(l, "id")),
          info.get(JAVA_INT, offset(l, "sliceCount")),
          info.get(JAVA_INT, offset(l, "instanceCount")),
          info.get(JAVA_LONG, offset(l, "memorySizeMB")));
    }
  }

  public record Placement(int start, int size) {}

  public record GpuInstanceInfo(int id, int profileId, Placement placement) {
    static GpuInstanceInfo of(MemorySegment info) {
      var l = NvmlLayouts.GPU_INSTANCE_INFO;
      long placement = offset(l, "placement");
      return new GpuInstanceInfo(
          info.get(JAVA_INT, offset(l, "id")),
          info.get(JAVA_INT, offset(l, "profileId")),
          new Placement(info.get(JAVA_INT, placement), info.get(JAVA_INT, placement + 4)));
    }
  }

  public record ComputeInstanceProfileInfo(int id, int sliceCount) {
    static ComputeInstanceProfileInfo of(MemorySegment info) {
      var l = NvmlLayouts.COMPUTE_INSTANCE_PROFILE_INFO;
      return new ComputeInstanceProfileInfo(
          info.get(JAVA_INT, offset(l, "id")), info.get(JAVA_INT, offset(l, "sliceCount")));
    }
  }

  public record ProcessInfo(long pid, long usedGpuMemoryBytes) {}

  // ---- system ----

  /** Bounded by {@link NvmlCalls#INIT_BOUND}: initialising every GPU takes seconds per GPU. */
  public void init() {
    calls.run(NvmlCalls.INIT_BOUND, () -> checked("nvmlInit_v2"));
  }

  public void shutdown() {
    calls.run(NvmlCalls.INIT_BOUND, () -> checked("nvmlShutdown"));
  }

  public String driverVersion() {
    return calls.run(() -> stringOut("nvmlSystemGetDriverVersion", 80));
  }

  public int deviceCount() {
    return calls.run(() -> intOut("nvmlDeviceGetCount_v2"));
  }

  public MemorySegment device(int index) {
    return calls.run(() -> handleOut("nvmlDeviceGetHandleByIndex_v2", index));
  }

  // ---- device facts ----

  public String uuid(MemorySegment device) {
    return calls.run(() -> stringOut("nvmlDeviceGetUUID", STRING_BUFFER, device));
  }

  public String name(MemorySegment device) {
    return calls.run(() -> stringOut("nvmlDeviceGetName", STRING_BUFFER, device));
  }

  public int minorNumber(MemorySegment device) {
    return calls.run(() -> intOut("nvmlDeviceGetMinorNumber", device));
  }

  public PciInfo pciInfo(MemorySegment device) {
    return calls.run(() -> out("nvmlDeviceGetPciInfo_v3", PCI_INFO, PciInfo::of, device));
  }

  /** Total framebuffer memory in bytes. */
  public long memoryTotalBytes(MemorySegment device) {
    long total = offset(MEMORY, "total");
    return calls.run(
        () -> out("nvmlDeviceGetMemoryInfo", MEMORY, info -> info.get(JAVA_LONG, total), device));
  }

  /** Current and pending MIG mode (1 = enabled); empty where the GPU is not MIG capable. */
  public Optional<MigModes> migMode(MemorySegment device) {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment current = local.allocate(JAVA_INT);
            MemorySegment pending = local.allocate(JAVA_INT);
            int rc = call("nvmlDeviceGetMigMode", device, current, pending);
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
    return calls.run(() -> intOut("nvmlDeviceSetMigMode", device, enabled ? 1 : 0));
  }

  // ---- GPU instances ----

  /** Info of GPU-instance profile index {@code profile}; empty where the GPU does not offer it. */
  public Optional<GpuInstanceProfileInfo> gpuInstanceProfileInfo(
      MemorySegment device, int profile) {
    return calls.run(
        () ->
            offered(
                "nvmlDeviceGetGpuInstanceProfileInfo",
                GPU_INSTANCE_PROFILE_INFO,
                GpuInstanceProfileInfo::of,
                device,
                profile));
  }

  public List<Placement> possiblePlacements(MemorySegment device, int profileId) {
    return calls.run(
        () -> {
          var l = NvmlLayouts.PLACEMENT;
          try (Arena local = Arena.ofConfined()) {
            MemorySegment count = local.allocate(JAVA_INT);
            String fn = "nvmlDeviceGetGpuInstancePossiblePlacements_v2";
            check(fn, call(fn, device, profileId, MemorySegment.NULL, count));
            int n = count.get(JAVA_INT, 0);
            MemorySegment placements = local.allocate(l, Math.max(n, 1));
            check(fn, call(fn, device, profileId, placements, count));
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
    return calls.run(() -> handleOut("nvmlDeviceCreateGpuInstance", device, profileId));
  }

  public MemorySegment createGpuInstance(MemorySegment device, int profileId, Placement at) {
    return calls.run(
        () -> {
          try (Arena local = Arena.ofConfined()) {
            MemorySegment placement = local.allocate(NvmlLayouts.PLACEMENT);
            placement.set(JAVA_INT, 0, at.start());
            placement.set(JAVA_INT, 4, at.size());
            String fn = "nvmlDeviceCreateGpuInstanceWithPlacement";
            return handleOut(fn, device, profileId, placement);
          }
        });
  }

  public List<MemorySegment> gpuInstances(MemorySegment device, int profileId) {
    return calls.run(() -> handles("nvmlDeviceGetGpuInstances", device, profileId, 8));
  }

  public GpuInstanceInfo gpuInstanceInfo(MemorySegment gpuInstance) {
    return calls.run(
        () -> out("nvmlGpuInstanceGetInfo", GPU_INSTANCE_INFO, GpuInstanceInfo::of, gpuInstance));
  }

  public void destroyGpuInstance(MemorySegment gpuInstance) {
    calls.run(() -> checked("nvmlGpuInstanceDestroy", gpuInstance));
  }

  // ---- compute instances ----

  /**
   * Info of compute-instance profile index {@code profile} (shared engines); empty if not offered.
   */
  public Optional<ComputeInstanceProfileInfo> computeInstanceProfileInfo(
      MemorySegment gpuInstance, int profile) {
    return calls.run(
        () ->
            offered(
                "nvmlGpuInstanceGetComputeInstanceProfileInfo",
                COMPUTE_INSTANCE_PROFILE_INFO,
                ComputeInstanceProfileInfo::of,
                gpuInstance,
                profile,
                0));
  }

  public MemorySegment createComputeInstance(MemorySegment gpuInstance, int profileId) {
    return calls.run(
        () -> handleOut("nvmlGpuInstanceCreateComputeInstance", gpuInstance, profileId));
  }

  public List<MemorySegment> computeInstances(MemorySegment gpuInstance, int profileId) {
    return calls.run(
        () -> handles("nvmlGpuInstanceGetComputeInstances", gpuInstance, profileId, 8));
  }

  public void destroyComputeInstance(MemorySegment computeInstance) {
    calls.run(() -> checked("nvmlComputeInstanceDestroy", computeInstance));
  }

  // ---- processes ----

  public List<ProcessInfo> computeProcesses(MemorySegment device) {
    return calls.run(
        () -> {
          var l = NvmlLayouts.PROCESS_INFO;
          String fn = "nvmlDeviceGetComputeRunningProcesses_v3";
          int capacity = 32;
          while (true) {
            try (Arena local = Arena.ofConfined()) {
              MemorySegment count = local.allocate(JAVA_INT);
              count.set(JAVA_INT, 0, capacity);
              MemorySegment infos = local.allocate(l, capacity);
              int rc = call(fn, device, count, infos);
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

  /**
   * Calls {@code fn} with {@code args}, then a buffer of {@code size} bytes and that size, as
   * NVML's string getters take them; returns the C string NVML wrote.
   */
  private String stringOut(String fn, int size, Object... args) {
    try (Arena local = Arena.ofConfined()) {
      MemorySegment buf = local.allocate(size);
      check(fn, call(fn, append(append(args, buf), size)));
      return buf.getString(0);
    }
  }

  /** Calls {@code fn}, which answers nothing but its status; throws where that is not success. */
  private Void checked(String fn, Object... args) {
    check(fn, call(fn, args));
    return null;
  }

  /** {@link #out} for a function whose last parameter points at one unsigned int. */
  private int intOut(String fn, Object... args) {
    return out(fn, JAVA_INT, filled -> filled.get(JAVA_INT, 0), args);
  }

  /** {@link #out} for a function whose last parameter points at a handle it looks up or makes. */
  private MemorySegment handleOut(String fn, Object... args) {
    return out(fn, ADDRESS, filled -> filled.get(ADDRESS, 0), args);
  }

  /**
   * NVML's getter: calls {@code fn} with {@code args} and then a pointer to scratch memory of
   * {@code layout} that NVML fills; returns what {@code read} takes from it before it is freed.
   */
  private <T> T out(
      String fn, MemoryLayout layout, Function<MemorySegment, T> read, Object... args) {
    try (Arena local = Arena.ofConfined()) {
      MemorySegment filled = local.allocate(layout);
      check(fn, call(fn, append(args, filled)));
      return read.apply(filled);
    }
  }

  /**
   * {@link #out} for a profile query: empty where NVML answers that the GPU does not offer the
   * profile (an index past its profiles, or not MIG capable), which is an answer, not a failure.
   */
  private <T> Optional<T> offered(
      String fn, MemoryLayout layout, Function<MemorySegment, T> read, Object... args) {
    try (Arena local = Arena.ofConfined()) {
      MemorySegment filled = local.allocate(layout);
      int rc = call(fn, append(args, filled));
      if (rc == NvmlReturn.ERROR_INVALID_ARGUMENT || rc == NvmlReturn.ERROR_NOT_SUPPORTED) {
        return Optional.empty();
      }
      check(fn, rc);
      return Optional.of(read.apply(filled));
    }
  }

  private static Object[] append(Object[] args, Object last) {
    Object[] all = Arrays.copyOf(args, args.length + 1);
    all[args.length] = last;
    return all;
  }

  private List<MemorySegment> handles(String fn, MemorySegment owner, int profileId, int capacity) {
    try (Arena local = Arena.ofConfined()) {
      MemorySegment count = local.allocate(JAVA_INT);
      while (true) {
        MemorySegment array = local.allocate(ADDRESS, capacity);
        count.set(JAVA_INT, 0, capacity);
        int rc = call(fn, owner, profileId, array, count);
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

  /**
   * The C signature of an NVML call with these arguments. The functions the agent calls take only
   * pointers and unsigned ints and return an nvmlReturn_t, so the signature follows from the Java
   * arguments: a {@link MemorySegment} is a pointer, an {@link Integer} an unsigned int.
   */
  private static FunctionDescriptor signature(Object... args) {
    MemoryLayout[] parameters = new MemoryLayout[args.length];
    for (int i = 0; i < args.length; i++) {
      parameters[i] =
          switch (args[i]) {
            case MemorySegment pointer -> ADDRESS;
            case Integer unsignedInt -> JAVA_INT;
            default ->
                throw new IllegalArgumentException(
                    "no C type for argument " + i + ": " + args[i].getClass().getName());
          };
    }
    return FunctionDescriptor.of(JAVA_INT, parameters);
  }

  private int call(String fn, Object... args) {
    MethodHandle handle;
    try {
      handle = bind(fn, signature(args));
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
